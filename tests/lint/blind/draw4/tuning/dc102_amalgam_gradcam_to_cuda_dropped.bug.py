# devcheck bug corpus: DC102
# From: https://github.com/Synopsis/amalgam/pull/5
# fastai_amalgam's Grad-CAM helper calls to_cuda(learn.model, x), a list
# comprehension of o.cuda() whose results are dropped: the model moves in
# place to the GPU but the input batch x stays on the CPU, so the forward
# pass under the hooks mixes devices.
# Written for devcheck's tests after the thread; not the project's code.
from fastai.vision.all import *


class Hook:
    def __init__(self, m):
        self.hook = m.register_forward_hook(self.hook_func)

    def hook_func(self, m, inp, out):
        self.stored = out.detach().clone()

    def __enter__(self, *args):
        return self

    def __exit__(self, *args):
        self.hook.remove()


class HookBwd:
    def __init__(self, m):
        self.hook = m.register_full_backward_hook(self.hook_func)

    def hook_func(self, model, grad_in, grad_out):
        self.stored = grad_out[0].detach().clone()

    def __enter__(self, *args):
        return self

    def __exit__(self, *args):
        self.hook.remove()


def to_cuda(*args):
    [o.cuda() for o in args]  # <- bug


def compute_gcam_items(learn, x, label_idx=None, target_layer=None):
    to_cuda(learn.model, x)  # <- bug
    target_layer = target_layer if target_layer is not None else learn.model[0]
    with HookBwd(target_layer) as hook_g:
        with Hook(target_layer) as hook:
            preds = learn.model.eval()(x)
            activations = hook.stored
            if label_idx is None:
                label_idx = preds.argmax(dim=1).item()
        preds[0, label_idx].backward()
        gradients = hook_g.stored
    preds = preds.softmax(dim=1).detach().cpu().numpy().flatten()
    return gradients[0], activations[0], preds, learn.dls.vocab[label_idx]


def compute_gcam_map(gradients, activations):
    weights = gradients.mean(dim=[1, 2], keepdim=True)
    return (weights * activations).sum(0)


if __name__ == "__main__":
    learn = load_learner("export.pkl")
    img = PILImage.create("dog.jpg")
    x, = first(learn.dls.test_dl([img]))
    gradients, activations, preds, label = compute_gcam_items(learn, x)
    gcam = compute_gcam_map(gradients, activations)
    print(label, preds.max(), gcam.shape)
