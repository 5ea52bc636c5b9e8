# devcheck bug corpus: DC101
# From: https://github.com/KUL-recon-lab/parallelproj/pull/120
# The fix (PR 120, commit d10be47) creates the view angles with
# device=dev, like the ring positions, so the scanner's arrays are all on the
# chosen device.
# Written for devcheck's tests after the thread; not the project's code.
import array_api_compat.torch as xp
import matplotlib.pyplot as plt

import parallelproj

if "torch" in xp.__name__:
    dev = "cuda" if parallelproj.cuda_present else "cpu"
else:
    dev = "cpu"

scanner = parallelproj.RegularPolygonPETScannerGeometry(
    xp,
    dev,
    radius=65.0,
    num_sides=6,
    num_lor_endpoints_per_side=15,
    lor_spacing=2.3,
    ring_positions=xp.asarray([0.0], device=dev),
    symmetry_axis=2,
    phis=(2 * xp.pi / 12) * xp.asarray([-1, 0, 1, 5, 6, 7], device=dev),  # <- fixed
)
lor_desc = parallelproj.RegularPolygonPETLORDescriptor(
    scanner, radial_trim=1, sinogram_order=parallelproj.SinogramSpatialAxisOrder.RVP
)
proj = parallelproj.RegularPolygonPETProjector(lor_desc, img_shape=(40, 40, 1), voxel_size=(2.0, 2.0, 2.0))

x_true = xp.ones(proj.in_shape, device=dev, dtype=xp.float32)
x_true[:2, :, :] = 0
x_true[-2:, :, :] = 0
att_sino = xp.exp(-proj(0.01 * xp.astype(x_true > 0, xp.float32)))
att_op = parallelproj.ElementwiseMultiplicationOperator(att_sino)
res_model = parallelproj.GaussianFilterOperator(proj.in_shape, sigma=4.5 / (2.35 * proj.voxel_size))
pet_lin_op = parallelproj.CompositeLinearOperator((att_op, proj, res_model))

noise_free = pet_lin_op(x_true)
contamination = xp.full(noise_free.shape, 0.5 * float(xp.mean(noise_free)), device=dev, dtype=xp.float32)
y = xp.asarray(parallelproj.to_numpy_array(noise_free + contamination))

x = xp.ones(pet_lin_op.in_shape, dtype=xp.float32, device=dev)
adjoint_ones = pet_lin_op.adjoint(xp.ones(pet_lin_op.out_shape, dtype=xp.float32, device=dev))
for _ in range(20):
    ybar = pet_lin_op(x) + contamination
    x *= pet_lin_op.adjoint(xp.asarray(y, device=dev) / ybar) / adjoint_ones

plt.imshow(parallelproj.to_numpy_array(x[:, :, 0]))
plt.show()
