"""Numbers about runs: pass^k and weights, intervals and pair tests, item classes, the judge, task probes."""
