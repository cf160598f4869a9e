# Library inputs (BibTeX/RIS/CSL-JSON, LaTeX, Word citation fields) end to end through the API;
# writes only the `library_inputs` section of bench/results/extraction.json.
.PHONY: bench-library-inputs
bench-library-inputs: setup ## library inputs linked end to end (extraction.json library_inputs)
	$(PY) -m bench.library_inputs
