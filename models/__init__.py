"""Model files (cardnet.onnx + cardnet.json) and, under training/, the pipeline that makes them."""
