# devcheck bug corpus: DC102
# From: https://github.com/RaoFoundation/bittensor/pull/830
# From: https://github.com/RaoFoundation/bittensor/commit/05f302571949040e216e839118509c112301ff86
# The core validator's nucleus on a GPU: the responses that come back from the
# network are "sent to the device" by a loop whose .to() results are thrown
# away, so they stay on the CPU; the token batch from the dataset is embedded
# without being moved, and the routing loss starts as a CPU tensor that
# device losses are added into ("tensors don't do .to inplace").
# Written for devcheck's tests after the thread; not the project's code.
import math

import torch
from torch.nn import TransformerEncoder, TransformerEncoderLayer

NETWORK_DIM = 512
VOCAB_SIZE = 50258


class Nucleus(torch.nn.Module):
    def __init__(self, config, device, max_n):
        super().__init__()
        self.config = config
        self.device = device
        self.max_n = max_n
        self.token_embedding = torch.nn.Embedding(VOCAB_SIZE, NETWORK_DIM)
        layer = TransformerEncoderLayer(NETWORK_DIM, 2, 2048, 0.2, batch_first=True)
        self.routing_encoder = TransformerEncoder(layer, 1)
        self.gates = torch.nn.Linear(NETWORK_DIM, max_n, bias=True).to(self.device)
        self.sigmoid = torch.nn.Sigmoid()
        self.loss_fct = torch.nn.CrossEntropyLoss()

    def target_loss(self, logits, target):
        shift_logits = logits[..., :-1, :].contiguous()
        shift_labels = target[..., 1:].contiguous()
        return self.loss_fct(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1))

    def forward(self, inputs, dendrite, endpoints):
        inputs_seq = inputs[..., :-1]
        embedding = self.token_embedding(inputs_seq) * math.sqrt(NETWORK_DIM)  # <- bug

        src_mask = torch.triu(torch.ones(embedding.size(1), embedding.size(1)) * float('-inf'), diagonal=1)
        src_mask = src_mask.to(self.device)
        routing_context = self.routing_encoder(embedding, mask=src_mask)
        routing_score = torch.mean(self.sigmoid(self.gates(routing_context[:, -1, :])), axis=0)

        query_responses, return_ops = dendrite.text(endpoints=endpoints, inputs=inputs_seq)

        # Send responses to device.
        for responses in query_responses:
            for response in responses:
                response.to(self.device)  # <- bug

        routing_loss = torch.tensor(0.)  # <- bug
        for index, responses in enumerate(query_responses):
            if return_ops[index][0] == 1:
                loss = self.target_loss(responses[0], inputs_seq)
                target_score = torch.exp(-torch.clamp(loss - 1.69, 0))
                routing_loss += (routing_score[index] - target_score) ** 2
        return routing_loss


def validator_step(config, dendrite, endpoints, dataset, optimizer):
    device = torch.device(config.device)
    nucleus = Nucleus(config, device, max_n=len(endpoints)).to(device)
    inputs = next(dataset)
    loss = nucleus(inputs, dendrite, endpoints)
    loss.backward()
    optimizer.step()
    return loss.item()
