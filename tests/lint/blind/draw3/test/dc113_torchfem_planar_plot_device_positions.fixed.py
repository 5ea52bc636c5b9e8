# devcheck bug corpus: DC113
# From: https://github.com/meyer-nils/torch-fem/pull/31
# Fixed: the plot method copies the positions and the elements (and the
# plotted properties) to the CPU before anything reaches matplotlib.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import matplotlib.pyplot as plt
import torch
from matplotlib.collections import PolyCollection
from matplotlib.tri import Triangulation


class Planar:
    def __init__(self, nodes, elements):
        self.nodes = nodes
        self.elements = elements
        self.n_elem = len(elements)

    @torch.no_grad()
    def plot(self, u=0.0, node_property=None, element_property=None, cmap="viridis", ax=None):
        if ax is None:
            _, ax = plt.subplots()
        pos = self.nodes + u
        pos = pos.cpu()  # <- fixed
        elements = self.elements.cpu()  # <- fixed
        if node_property is not None:
            node_property = node_property.squeeze().cpu()  # <- fixed
            triangles = elements[:, :3].tolist()  # <- fixed
            triangulation = Triangulation(pos[:, 0], pos[:, 1], triangles)  # <- fixed
            ax.tricontourf(triangulation, node_property, cmap=cmap)
        if element_property is not None:
            element_property = element_property.squeeze().cpu()  # <- fixed
            verts = pos[elements]  # <- fixed
            pc = PolyCollection([v for v in verts.numpy()], cmap=cmap)  # <- fixed
            pc.set_array(element_property)
            ax.add_collection(pc)
        ax.set_aspect("equal", adjustable="box")
        return ax


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    torch.set_default_device(args.device)
    nodes = torch.tensor([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    elements = torch.tensor([[0, 1, 2], [2, 3, 0]])
    model = Planar(nodes, elements)
    u = 0.01 * torch.randn_like(nodes)
    stress = torch.rand(model.n_elem)
    model.plot(u, element_property=stress)
    plt.savefig("planar.png")


if __name__ == "__main__":
    main()
