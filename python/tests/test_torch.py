"""from_torch: a PyTorch module exported, compiled and trained, against
PyTorch training the same module."""

import numpy as np
import pytest

import autodist as ad

torch = pytest.importorskip("torch")


def test_from_torch_trains_equal_to_pytorch(digits, tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.Tanh(),
                                torch.nn.Linear(32, 10))
    reference = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.Tanh(),
                                    torch.nn.Linear(32, 10))
    reference.load_state_dict(model.state_dict())
    path = ad.from_torch(model, torch.zeros(4, 64), tmp_path / "m.onnx",
                         input_names=["x"])
    exe = ad.compile(path, train=ad.Training(optimizer=ad.optim.SGD(lr=0.1, momentum=0.9)),
                     output=tmp_path / "m.train")
    steps, batch = 20, 16
    run = exe.launch(ranks=2, data=digits, steps=steps, batch_size=batch // 2, echo=False)

    data = np.load(digits)
    x, y = torch.from_numpy(data["x"]), torch.from_numpy(data["labels"])
    opt = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    expected = []
    per_epoch = len(y) // batch
    for s in range(steps):
        i = (s % per_epoch) * batch
        loss = torch.nn.functional.cross_entropy(reference(x[i:i + batch]), y[i:i + batch])
        opt.zero_grad()
        loss.backward()
        opt.step()
        expected.append(loss.item())
    np.testing.assert_allclose(run.losses, expected, rtol=1e-4, atol=1e-5)


def test_from_torch_keeps_the_batch_dynamic(tmp_path):
    onnx = pytest.importorskip("onnx")
    path = ad.from_torch(torch.nn.Linear(3, 2), torch.zeros(5, 3), tmp_path / "l.onnx",
                         training=False)
    dim = onnx.load(path).graph.input[0].type.tensor_type.shape.dim[0]
    assert dim.dim_param == "batch"
