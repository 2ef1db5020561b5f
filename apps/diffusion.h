/* diffusion.h — the test problem of Altenbernd & Goettsche (seed 001): anisotropic diffusion on the unit square,
 *     -div(diag(1, 0.01) grad u) = b   on (0,1)^2,   u = 0 on the boundary,
 * with the exact solution u(x, y) = sin(pi x^2) sin(pi y^2) (zero on the whole boundary) and b derived from it.
 * 5-point finite differences on an n x n grid of interior points, h = 1/(n+1); point (i, j) is x = (i+1)h,
 * y = (j+1)h, stored row-major (index j n + i): a "row" is a line of constant y, and the grid is distributed by
 * rows. The kernels work on a block of rows with one halo row above and below (zero outside the domain), so the
 * serial solver, the MPI solver and the TMR-protected kernel share them. */
#ifndef FL_DIFFUSION_H
#define FL_DIFFUSION_H

typedef struct fl_diff {
  long n;        /* interior points per direction */
  double h;      /* grid spacing */
  double kx, ky; /* diffusion coefficients: 1 and 0.01 */
} fl_diff;

void fl_diff_init(fl_diff *p, long n);
/* y[0 .. nrows*n) = (A x) for a block of nrows rows; x_halo holds (nrows + 2) rows: the row above the block, the
 * block, the row below (zero rows at the domain's edge). */
void fl_diff_apply(const fl_diff *p, long nrows, const double *x_halo, double *y);
/* The diagonal of A (the same for every point): Jacobi's preconditioner. */
double fl_diff_diagonal(const fl_diff *p);
/* Right-hand side and exact solution on rows [row0, row0 + nrows). */
void fl_diff_rhs(const fl_diff *p, long row0, long nrows, double *b);
void fl_diff_exact(const fl_diff *p, long row0, long nrows, double *u);

/* Jacobi-preconditioned CG on the whole grid, from x (in/out), until ||r|| <= tol ||b|| or maxit iterations.
 * Returns the iterations done (negative if it did not converge). */
long fl_diff_cg(const fl_diff *p, const double *b, double *x, double tol, long maxit);

#endif
