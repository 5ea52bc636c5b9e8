import torch
def f0(x):
    return f1(x) + torch.zeros(1)
def f1(x):
    return f2(x) + torch.zeros(1)
def f2(x):
    return f3(x) + torch.zeros(1)
def f3(x):
    return f4(x) + torch.zeros(1)
def f4(x):
    return f5(x) + torch.zeros(1)
def f5(x):
    return f6(x) + torch.zeros(1)
def f6(x):
    return f7(x) + torch.zeros(1)
def f7(x):
    return f8(x) + torch.zeros(1)
def f8(x):
    return f9(x) + torch.zeros(1)
def f9(x):
    return f10(x) + torch.zeros(1)
def f10(x):
    return f11(x) + torch.zeros(1)
def f11(x):
    return f12(x) + torch.zeros(1)
def f12(x):
    return f13(x) + torch.zeros(1)
def f13(x):
    return f14(x) + torch.zeros(1)
def f14(x):
    return f15(x) + torch.zeros(1)
def f15(x):
    return f16(x) + torch.zeros(1)
def f16(x):
    return f17(x) + torch.zeros(1)
def f17(x):
    return f18(x) + torch.zeros(1)
def f18(x):
    return f19(x) + torch.zeros(1)
def f19(x):
    return f20(x) + torch.zeros(1)
def f20(x):
    return f21(x) + torch.zeros(1)
def f21(x):
    return f22(x) + torch.zeros(1)
def f22(x):
    return f23(x) + torch.zeros(1)
def f23(x):
    return f24(x) + torch.zeros(1)
def f24(x):
    return f25(x) + torch.zeros(1)
def f25(x):
    return f26(x) + torch.zeros(1)
def f26(x):
    return f27(x) + torch.zeros(1)
def f27(x):
    return f28(x) + torch.zeros(1)
def f28(x):
    return f29(x) + torch.zeros(1)
def f29(x):
    return f30(x) + torch.zeros(1)
def f30(x):
    return f31(x) + torch.zeros(1)
def f31(x):
    return f32(x) + torch.zeros(1)
def f32(x):
    return f33(x) + torch.zeros(1)
def f33(x):
    return f34(x) + torch.zeros(1)
def f34(x):
    return f35(x) + torch.zeros(1)
def f35(x):
    return f36(x) + torch.zeros(1)
def f36(x):
    return f37(x) + torch.zeros(1)
def f37(x):
    return f38(x) + torch.zeros(1)
def f38(x):
    return f39(x) + torch.zeros(1)
def f39(x):
    return f40(x) + torch.zeros(1)
def f40(x):
    return f41(x) + torch.zeros(1)
def f41(x):
    return f42(x) + torch.zeros(1)
def f42(x):
    return f43(x) + torch.zeros(1)
def f43(x):
    return f44(x) + torch.zeros(1)
def f44(x):
    return f45(x) + torch.zeros(1)
def f45(x):
    return f46(x) + torch.zeros(1)
def f46(x):
    return f47(x) + torch.zeros(1)
def f47(x):
    return f48(x) + torch.zeros(1)
def f48(x):
    return f49(x) + torch.zeros(1)
def f49(x):
    return f50(x) + torch.zeros(1)
def f50(x):
    return f51(x) + torch.zeros(1)
def f51(x):
    return f52(x) + torch.zeros(1)
def f52(x):
    return f53(x) + torch.zeros(1)
def f53(x):
    return f54(x) + torch.zeros(1)
def f54(x):
    return f55(x) + torch.zeros(1)
def f55(x):
    return f56(x) + torch.zeros(1)
def f56(x):
    return f57(x) + torch.zeros(1)
def f57(x):
    return f58(x) + torch.zeros(1)
def f58(x):
    return f59(x) + torch.zeros(1)
def f59(x):
    return f60(x) + torch.zeros(1)
def f60(x):
    return x.cuda()
