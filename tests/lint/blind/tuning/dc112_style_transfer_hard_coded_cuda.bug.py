# devcheck bug corpus: DC112
# From: https://github.com/zhanghang1989/PyTorch-Multi-Style-Transfer/issues/11
# The style-transfer demo moved the content image and style target with .cuda()
# unconditionally while the model followed the --cuda flag: on a machine without
# CUDA it failed ("Doesn't work without CUDA"). The fix followed the flag.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch


def evaluate(args, style_model, content_image, style):
    if args.cuda:
        style_model.cuda()
    content_image = content_image.cuda()  # <- bug
    style = style.cuda()  # <- bug
    style_model.setTarget(style)
    return style_model(content_image)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cuda", type=int, default=1)
    args = parser.parse_args()
