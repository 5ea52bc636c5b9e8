# devcheck bug corpus: DC120
# From: https://github.com/allenai/OpenBookQA/pull/5
# Fixed: evaluate() takes the cuda device and moves each batch there with
# allennlp's move_to_device before the forward pass.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import json

import torch
from allennlp.common.tqdm import Tqdm
from allennlp.data import DatasetReader
from allennlp.data.iterators import DataIterator
from allennlp.models.archival import load_archive
from allennlp.nn.util import move_to_device  # <- fixed


def evaluate(model, instances, data_iterator, cuda_device, output_file=None):  # <- fixed
    model.eval()
    iterator = data_iterator(instances, num_epochs=1, shuffle=False)
    batches = Tqdm.tqdm(iterator, total=data_iterator.get_num_batches(instances))
    with open(output_file, "w") if output_file else open("/dev/null", "w") as handle:
        for batch in batches:  # <- fixed
            batch = move_to_device(batch, cuda_device)  # <- fixed
            with torch.no_grad():
                output = model(**batch)
            for meta, probs in zip(batch.get("metadata", []), output["label_probs"].tolist()):
                handle.write(json.dumps({"id": meta.get("id"), "label_probs": probs}) + "\n")
            metrics = model.get_metrics()
            batches.set_description(", ".join(f"{k}: {v:.2f}" for k, v in metrics.items()))
    return model.get_metrics(reset=True)


def evaluate_from_args(args):
    archive = load_archive(args.archive_file, args.cuda_device, args.overrides)
    config = archive.config
    model = archive.model
    model.eval()
    reader = DatasetReader.from_params(config.pop("dataset_reader"))
    iterator = DataIterator.from_params(config.pop("iterator"))
    iterator.index_with(model.vocab)
    dataset = reader.read(args.evaluation_data_file)
    return evaluate(model, dataset, iterator, args.cuda_device, args.output_file)  # <- fixed


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("archive_file")
    parser.add_argument("--evaluation-data-file", dest="evaluation_data_file", required=True)
    parser.add_argument("--output-file", dest="output_file", default=None)
    parser.add_argument("--cuda-device", dest="cuda_device", type=int, default=-1)
    parser.add_argument("-o", "--overrides", default="")
    print(evaluate_from_args(parser.parse_args()))
