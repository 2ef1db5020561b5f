# wfcommons_layered.awk -v N=TASKS -v W=WIDTH -v V=1.4|1.5: a layered workflow (layers of W tasks, each reading the
# outputs of two tasks of the layer before, 1 MB files, runtimes 1-10 s) as a WfCommons JSON instance of schema V;
# the same workflow in either schema (bench/bench_workflow_load.sh)
function par(i, k) { l = int(i / W); j = i % W; return (l - 1) * W + (k == 0 ? (j * 7 + l) % W : (j * 13 + 5 * l + 1) % W) }
BEGIN {
  printf "{\"name\": \"layered\", \"schemaVersion\": \"%s\", \"workflow\": {", V
  if (V == "1.4") {
    printf "\"machines\": [{\"nodeName\": \"m0\", \"cpu\": {\"speedInMHz\": 1000, \"coreCount\": 1}}], \"tasks\": ["
    for (i = 0; i < N; i++) {
      printf "%s{\"name\": \"t%d\", \"type\": \"compute\", \"category\": \"L%d\", \"runtimeInSeconds\": %d, \"machine\": \"m0\", \"parents\": [", (i ? "," : ""), i, int(i / W), 1 + i % 10
      if (i >= W) { a = par(i, 0); b = par(i, 1); if (b == a) b = (a % W + 1) % W + int(a / W) * W; printf "\"t%d\", \"t%d\"", a, b }
      printf "], \"files\": [{\"link\": \"output\", \"name\": \"f%d\", \"sizeInBytes\": 1000000}", i
      if (i >= W) printf ", {\"link\": \"input\", \"name\": \"f%d\", \"sizeInBytes\": 1000000}, {\"link\": \"input\", \"name\": \"f%d\", \"sizeInBytes\": 1000000}", a, b
      printf "]}\n"
    }
    printf "]}}\n"
  } else {
    printf "\"specification\": {\"tasks\": ["
    for (i = 0; i < N; i++) {
      printf "%s{\"name\": \"t%d\", \"id\": \"t%d\", \"category\": \"L%d\", \"parents\": [", (i ? "," : ""), i, i, int(i / W)
      if (i >= W) { a = par(i, 0); b = par(i, 1); if (b == a) b = (a % W + 1) % W + int(a / W) * W; printf "\"t%d\", \"t%d\"", a, b }
      printf "], \"inputFiles\": ["
      if (i >= W) printf "\"f%d\", \"f%d\"", a, b
      printf "], \"outputFiles\": [\"f%d\"]}\n", i
    }
    printf "], \"files\": ["
    for (i = 0; i < N; i++) printf "%s{\"id\": \"f%d\", \"sizeInBytes\": 1000000}", (i ? "," : ""), i
    printf "]}, \"execution\": {\"machines\": [{\"nodeName\": \"m0\", \"cpu\": {\"speedInMHz\": 1000, \"coreCount\": 1}}], \"tasks\": ["
    for (i = 0; i < N; i++) printf "%s{\"id\": \"t%d\", \"runtimeInSeconds\": %d, \"machines\": [\"m0\"]}\n", (i ? "," : ""), i, 1 + i % 10
    printf "]}}}\n"
  }
}
