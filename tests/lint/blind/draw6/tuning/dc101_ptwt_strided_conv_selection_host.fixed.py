# devcheck bug corpus: DC101
# From: https://github.com/v0lta/PyTorch-Wavelet-Toolbox/pull/19
# The fix passes device= to both sparse constructors: the filter's device for
# the convolution matrix and the convolution matrix's device for the selection
# matrix.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch


def construct_conv_matrix(filter, input_rows, mode="valid"):
    filter_length = len(filter)
    if mode == "full":
        start_row, stop_row = 0, input_rows + filter_length - 1
    elif mode == "valid":
        start_row, stop_row = filter_length - 1, input_rows - 1
    else:
        raise ValueError("unknown padding type.")
    row_indices, column_indices, values = [], [], []
    for column in range(input_rows):
        for row in range(filter_length):
            check_row = column + row
            if start_row <= check_row <= stop_row:
                row_indices.append(row + column - start_row)
                column_indices.append(column)
                values.append(filter[row])
    indices = torch.tensor(np.stack([row_indices, column_indices]), device=filter.device)
    value_tensor = torch.stack(values)
    return torch.sparse_coo_tensor(  # <- fixed
        indices, value_tensor, device=filter.device, dtype=filter.dtype  # <- fixed
    )  # <- fixed


def construct_strided_conv_matrix(filter, input_rows, stride, mode="valid"):
    conv_matrix = construct_conv_matrix(filter, input_rows, mode)
    select_rows = torch.arange(0, conv_matrix.shape[0], stride)
    selection_matrix = torch.sparse_coo_tensor(  # <- fixed
        torch.stack([torch.arange(0, len(select_rows)), select_rows]),
        torch.ones_like(select_rows),
        size=[len(select_rows), conv_matrix.shape[0]],
        dtype=conv_matrix.dtype,
        device=conv_matrix.device,  # <- fixed
    )
    return torch.sparse.mm(selection_matrix, conv_matrix)


def analysis_matrix(dec_lo, dec_hi, length):
    lo = construct_strided_conv_matrix(dec_lo.flip(0), length, 2)
    hi = construct_strided_conv_matrix(dec_hi.flip(0), length, 2)
    return torch.cat([lo, hi], 0)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dec_lo = torch.tensor([0.4830, 0.8365, 0.2241, -0.1294], dtype=torch.float64, device=device)
    dec_hi = torch.tensor([-0.1294, -0.2241, 0.8365, -0.4830], dtype=torch.float64, device=device)
    signal = torch.randn(64, 1, dtype=torch.float64, device=device)
    coefficients = torch.sparse.mm(analysis_matrix(dec_lo, dec_hi, 64), signal)
