"""End-to-end throughput benchmark on distinct work (`python -m bench.e2e`; method in
`__main__`)."""
