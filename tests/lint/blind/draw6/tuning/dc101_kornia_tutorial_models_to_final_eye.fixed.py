# devcheck bug corpus: DC101
# From: https://github.com/kornia/tutorials/issues/21
# The fix (as the thread's reporter gives it) moves the identity to the device
# before the chain, so every product is on the GPU.
# Written for devcheck's tests after the thread; not the project's code.
import cv2
import kornia as K
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def load_frame(path):
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    return (K.utils.image_to_tensor(img).float() / 255.0)[None]


def register_sequence(frames):
    registrator = K.geometry.ImageRegistrator("similarity", loss_fn=torch.nn.functional.l1_loss,
                                              num_iterations=200, pyramid_levels=4, lr=1e-3)
    models = []
    for img_src, img_dst in zip(frames[:-1], frames[1:]):
        models.append(registrator.register(img_src, img_dst))
    return models


def warp_to_last(frames, models):
    models_to_final = [torch.eye(3).to(device)[None]]  # <- fixed
    for m in models[::-1]:
        models_to_final.append(m @ models_to_final[-1])
    models_to_final = models_to_final[::-1]
    h, w = frames[-1].shape[-2:]
    return [K.geometry.homography_warp(f, T, (h, w)) for f, T in zip(frames, models_to_final)]


def main():
    paths = [f"frames/{i:03d}.png" for i in range(8)]
    frames = [load_frame(p).to(device) for p in paths]
    models = register_sequence(frames)
    warped = warp_to_last(frames, models)
    mosaic = torch.stack(warped).max(dim=0).values
    cv2.imwrite("mosaic.png", K.utils.tensor_to_image(mosaic * 255.0))


if __name__ == "__main__":
    main()
