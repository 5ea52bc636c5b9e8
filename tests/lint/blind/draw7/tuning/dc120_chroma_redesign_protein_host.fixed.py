# devcheck bug corpus: DC120
# From: https://github.com/generatebio/chroma/issues/34
# The fix the maintainer confirms: load the Protein on the device Chroma runs
# on (device="cuda:0" here), so design() gets coordinates on the GPU.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

from chroma import Chroma, Protein


def redesign(chroma, path, out_path):
    protein = Protein(path, device="cuda:0")  # <- fixed
    designed = chroma.design(protein)
    designed.to(out_path)
    return designed


def main():
    parser = argparse.ArgumentParser(description="Redesign the sequence of a structure")
    parser.add_argument("structure", help="input CIF or PDB file")
    parser.add_argument("--out", default="redesign.cif")
    args = parser.parse_args()

    chroma = Chroma()
    designed = redesign(chroma, args.structure, args.out)
    print(designed.sequence())


if __name__ == "__main__":
    main()
