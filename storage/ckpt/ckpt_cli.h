/* ckpt_cli.h — `faultline ckpt ls|verify|dump DIR ...`: look into a checkpoint directory without the program
 * that wrote it. Exit status: 0 ok, 1 failure (a corrupt version, an unreadable file), 2 bad input. */
#ifndef FL_CKPT_CLI_H
#define FL_CKPT_CLI_H

/* argv[0] is "ckpt", argv[1] the action. */
int fl_ckpt_cli_main(int argc, char **argv);

#endif
