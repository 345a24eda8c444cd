#!/usr/bin/python3
"""Export a PyTorch model to ONNX and clean the export up with onnx-opt, in memory.

    /usr/bin/python3 examples/python/export_and_optimize.py [OUTPUT.onnx]

Needs Debian's python3-torch and python3-onnx, and the onnxopt module (`bash scripts/demo.sh`
installs it; docs/python-api.md). The part to paste after your own model is marked below.

torch 1.13 exports the GRU's zero initial state as Shape -> Gather -> Unsqueeze -> Concat ->
Expand of a constant; with a static batch that Expand changes nothing, and -O1 removes it and
everything that only fed it.
"""

import io
import sys

import onnx
import torch

import onnxopt


class SequenceClassifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.GRU(input_size=16, hidden_size=24, batch_first=True)
        self.head = torch.nn.Linear(24, 5)

    def forward(self, x):  # x: [batch, steps, 16]
        out, _ = self.rnn(x)
        return self.head(out[:, -1, :])


def main(output):
    torch.manual_seed(0)
    model = SequenceClassifier().eval()
    example = torch.randn(2, 6, 16)

    # --- paste from here: export to memory, optimize, save ---
    buffer = io.BytesIO()
    torch.onnx.export(model, example, buffer, opset_version=13, input_names=["x"],
                      output_names=["y"])
    exported = onnx.load_model_from_string(buffer.getvalue())
    optimized, report = onnxopt.optimize(exported, return_report=True)  # -O1
    onnx.save(optimized, output)
    # --- to here ---

    print(report.format_statistics(), end="")
    print(f"{len(exported.graph.node)} nodes -> {len(optimized.graph.node)} nodes; wrote {output}")
    return exported, optimized


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "sequence_classifier.onnx")
