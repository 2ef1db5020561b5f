#!/usr/bin/env python3
"""An independent FCFS / EASY / conservative-backfilling replay of an SWF trace, compared job for job with `faultline workload --jobs`.

Written from the definitions (Mu'alem and Feitelson, IEEE TPDS 12(6), 2001), sharing no code with faultline:
the trace is read with Python's gzip module, the schedule is an event loop that recomputes the free nodes and the
shadow time (EASY) or the free-node profile and every reservation (conservative) from scratch at every decision. At one instant: ends, then submits, then one scheduling pass. A job
running past its requested time counts as ending now for the shadow time; under conservative backfilling it still
holds its nodes at this instant (free just after now), so a job reserved now starts only on free nodes. A job without
a requested time uses its run time. Usage: workload_check.py FAULTLINE TRACE SCHEDULER [NODES]. Exit 0 when every start time is equal."""
import csv, gzip, math, subprocess, sys, tempfile, os


def read_swf(path):
    opener = gzip.open if path.endswith(".gz") else open
    jobs, max_procs = [], 0
    with opener(path, "rt") as f:
        for line in f:
            s = line.strip()
            if not s:
                continue
            if s.startswith(";"):
                body = s[1:].strip()
                if body.startswith("MaxProcs:"):
                    max_procs = int(body.split(":", 1)[1])
                continue
            v = [float(x) for x in s.split()]
            procs = v[4] if v[4] > 0 else v[7]
            if v[3] < 0 or procs <= 0:
                continue  # never ran
            est = v[8] if v[8] > 0 else v[3]
            jobs.append({"id": int(v[0]), "submit": v[1], "run": v[3], "est": est, "nodes": int(procs)})
    jobs.sort(key=lambda j: j["submit"])  # stable: file order among equal submits
    return jobs, max_procs


def conservative_starts(t, jobs, queue, running, machine):
    """Conservative backfilling at time t: each waiting job in queue order gets the earliest reservation where its
    nodes stay free for its whole estimate, given the running jobs (ending at their estimates, an overrun one now)
    and the reservations before it. Returns the queue positions that start now."""
    # profile: sorted breakpoints (time, free nodes from then on until the next)
    after = math.nextafter(t, math.inf)
    ends = sorted((r[1] if r[1] > t else after, r[2]) for r in running)
    prof = [[t, machine - sum(r[2] for r in running)]]
    for end, nodes in ends:
        if prof[-1][0] != end:
            prof.append([end, prof[-1][1]])
        prof[-1][1] += nodes
    def point(x):  # index of breakpoint x, inserted if needed
        i = 0
        while i + 1 < len(prof) and prof[i + 1][0] <= x:
            i += 1
        if prof[i][0] == x:
            return i
        prof.insert(i + 1, [x, prof[i][1]])
        return i + 1
    now = []
    for pos, k in enumerate(queue):
        need, est = jobs[k]["nodes"], jobs[k]["est"]
        start = None
        for cand in range(len(prof)):
            t0 = prof[cand][0]
            ok = all(f >= need for (x, f) in prof[cand:] if x < t0 + est or x == t0)
            if ok:
                start = t0
                break
        a, b = point(start), point(start + est)
        for i in range(a, b):
            prof[i][1] -= need
        if start == t:
            now.append(pos)
    return now


def replay(jobs, machine, easy):
    n = len(jobs)
    start = [None] * n
    running = []  # [actual_end, estimated_end, nodes]
    queue = []
    nxt = 0
    while nxt < n or running or queue:
        times = [r[0] for r in running]
        if nxt < n:
            times.append(jobs[nxt]["submit"])
        t = min(times)
        running = [r for r in running if r[0] > t]
        while nxt < n and jobs[nxt]["submit"] == t:
            queue.append(nxt)
            nxt += 1
        free = machine - sum(r[2] for r in running)

        def run(k):
            start[k] = t
            running.append([t + jobs[k]["run"], t + jobs[k]["est"], jobs[k]["nodes"]])

        if easy == "conservative":
            picked = conservative_starts(t, jobs, queue, running, machine)
            for pos in picked:
                run(queue[pos])
            queue = [k for pos, k in enumerate(queue) if pos not in set(picked)]
            continue
        while queue and jobs[queue[0]]["nodes"] <= free:
            k = queue.pop(0)
            free -= jobs[k]["nodes"]
            run(k)
        if not easy or not queue:
            continue
        need = jobs[queue[0]]["nodes"]
        avail, shadow = free, t
        for end, nodes in sorted((max(r[1], t), r[2]) for r in running):
            if avail >= need and end > shadow:
                break  # the nodes free at the shadow time: every job ending by then has freed its own
            avail += nodes
            shadow = end
        extra = avail - need
        rest = []
        for k in queue[1:]:
            w = jobs[k]["nodes"]
            if w <= free and t + jobs[k]["est"] <= shadow:
                free -= w
                run(k)
            elif w <= free and w <= extra:
                free -= w
                extra -= w
                run(k)
            else:
                rest.append(k)
        queue = queue[:1] + rest
    return start


def main():
    exe, trace, sched = sys.argv[1], sys.argv[2], sys.argv[3]
    jobs, max_procs = read_swf(trace)
    machine = int(sys.argv[4]) if len(sys.argv) > 4 else max_procs
    if any(j["nodes"] > machine for j in jobs):
        print(f"a job needs more than the {machine} nodes")
        return 2
    mine = replay(jobs, machine, "conservative" if sched == "conservative" else sched == "easy")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "jobs.csv")
        subprocess.run([exe, "workload", trace, "--nodes", str(machine), "--scheduler", sched, "--jobs", out],
                       check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            theirs = list(csv.DictReader(f))
    if len(theirs) != len(jobs):
        print(f"{len(theirs)} jobs from faultline, {len(jobs)} here")
        return 1
    bad = 0
    for j, s, row in zip(jobs, mine, theirs):
        if int(row["job"]) != j["id"] or float(row["start_s"]) != s:
            bad += 1
            if bad <= 5:
                print(f"job {j['id']}: faultline starts it at {row['start_s']} (job {row['job']}), here at {s}")
    waits = sum(s - j["submit"] for j, s in zip(jobs, mine)) / len(jobs)
    print(f"{trace} {sched} on {machine} nodes: {len(jobs)} jobs, {bad} differ; mean wait {waits:.1f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
