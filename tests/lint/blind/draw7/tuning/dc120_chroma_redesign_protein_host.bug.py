# devcheck bug corpus: DC120
# From: https://github.com/generatebio/chroma/issues/34
# Redesigning a structure with Chroma on a machine with a GPU: Chroma() loads
# its networks onto CUDA, but the Protein read from the CIF file stays on the
# CPU (its default device), and design() feeds its coordinates to the GPU
# networks.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

from chroma import Chroma, Protein


def redesign(chroma, path, out_path):
    protein = Protein(path)  # <- bug
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
