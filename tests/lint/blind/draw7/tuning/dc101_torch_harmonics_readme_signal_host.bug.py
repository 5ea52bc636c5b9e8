# devcheck bug corpus: DC101
# From: https://github.com/NVIDIA/torch-harmonics/pull/63
# torch-harmonics' getting-started example picks CUDA when it is there and
# moves the RealSHT module (its quadrature weights and Legendre tables are
# buffers) to that device, but makes the input signal with torch.randn and no
# device: the transform then mixes the CPU signal with the CUDA tables.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch_harmonics as th

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

nlat = 512
nlon = 2 * nlat
batch_size = 32
signal = torch.randn(batch_size, nlat, nlon)  # <- bug

# transform data on an equiangular grid and back
sht = th.RealSHT(nlat, nlon, grid="equiangular").to(device)
isht = th.InverseRealSHT(nlat, nlon, grid="equiangular").to(device)

coeffs = sht(signal)
reconstruction = isht(coeffs)
print(coeffs.shape, (reconstruction - signal).abs().max())
