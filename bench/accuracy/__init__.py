"""Accuracy benchmarks on Check-COVID dev.

`python -m bench.accuracy` (`make bench-accuracy`): the whole pipeline through the running
stack; its parts are `dataset` (the cases), `documents` (the PDFs), `stack` (upload, runs,
reports), `score` (matching and scores) and `inprocess` (the judge controls of the diagnosis).
`python -m bench.accuracy.judge` (`make bench-accuracy-judge`): the judge alone.
"""
