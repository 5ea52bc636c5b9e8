import pytest
import torch
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
@pytest.mark.gpu
def test_sharded():
    model = torch.nn.Linear(2, 2, device='cuda')
    return model(torch.ones(2).cuda())
def test_plain():
    return torch.ones(2).cuda()
