# devcheck bug corpus: DC120
# From: https://github.com/facebookresearch/esm/issues/374
# From: https://github.com/facebookresearch/esm/pull/386
# The fix takes the device from the model's parameters and has the batch
# converter put the coordinate batch there; model.sample gets a device
# argument and the caller passes the model's device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import esm
import esm.inverse_folding
from esm.inverse_folding.util import CoordBatchConverter


def get_encoder_output(model, alphabet, coords):
    device = next(model.parameters()).device  # <- fixed
    batch_converter = CoordBatchConverter(alphabet)
    batch = [(coords, None, None)]
    coords, confidence, _, _, padding_mask = batch_converter(batch, device=device)  # <- fixed
    encoder_out = model.encoder.forward(coords, padding_mask, confidence, return_all_hiddens=False)
    return encoder_out["encoder_out"][0][1:-1, 0]


def main(pdb_path, chain="A", n_samples=3):
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    model, alphabet = esm.pretrained.esm_if1_gvp4_t16_142M_UR50()
    model = model.eval()
    model.to(device)

    structure = esm.inverse_folding.util.load_structure(pdb_path, chain)
    coords, native_seq = esm.inverse_folding.util.extract_coords_from_structure(structure)

    with torch.no_grad():
        rep = get_encoder_output(model, alphabet, coords)
        print("embedding", tuple(rep.shape))
        for _ in range(n_samples):
            sampled = model.sample(coords, temperature=1.0, device=device)  # <- fixed
            identity = sum(a == b for a, b in zip(sampled, native_seq)) / len(native_seq)
            print(sampled, f"{identity:.2f}")


if __name__ == "__main__":
    main("data/5YH2.pdb", chain="C")
