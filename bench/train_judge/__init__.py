"""Training the local judge's cross-encoder (``make train-judge``): data, counterfactuals,
fine-tuning, calibration on a held-out part of Check-COVID train, and the ONNX export the judge
ships."""
