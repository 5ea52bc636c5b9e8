# devcheck bug corpus: DC105
# From: https://github.com/mks0601/3DMPPE_POSENET_RELEASE/issues/41
# A custom loader for the pose network: torch.load(modelpath) without
# map_location, the model moved to a GPU only when one was asked for, so on the
# CPU the CUDA storages of the released checkpoint could not be restored.
# Written for devcheck's tests after the thread; not the project's code.
import torch


def modelLoader(modelpath, get_pose_net, resnet_type, joint_num, gpu):
    model = get_pose_net(resnet_type, False, joint_num)
    ckpt = torch.load(modelpath)  # <- bug
    model.load_state_dict(ckpt["network"])
    model.eval()
    if gpu != "-1":
        device = torch.device(f"cuda:{gpu}")
        model.cuda(device=device)
    return model
