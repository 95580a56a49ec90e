"""`python -m pt2onnx ...` is the `pt2onnx` command."""
from pt2onnx._binary import main

main()
