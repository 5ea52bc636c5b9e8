# devcheck bug corpus: DC113
# From: https://github.com/almazan/paiss/issues/4
# The image-retrieval demo runs the network on the GPU and reads q_feat =
# model(I).numpy(); the report: change it to model(I).cpu().numpy().
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torchvision

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torchvision.models.resnet18()
model.to(device)
model.eval()


def query_features(image):
    I = image.unsqueeze(0).to(device)
    with torch.no_grad():
        q_feat = model(I).cpu().numpy()  # <- fixed
    return q_feat
