# devcheck bug corpus: DC101
# From: https://github.com/allenai/allennlp/pull/433
# Fixed: the context and the start symbols are made with .new() of a tensor
# already on the model's device (the encoder's outputs, the source tokens),
# so they are made there; the device_of blocks are gone.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class SimpleSeq2Seq(nn.Module):
    def __init__(self, vocab_size, target_vocab_size, dim, start_index, max_decoding_steps=50):
        super().__init__()
        self._source_embedder = nn.Embedding(vocab_size, dim)
        self._encoder = nn.LSTM(dim, dim, batch_first=True)
        self._target_embedder = nn.Embedding(target_vocab_size, dim)
        self._decoder_output_dim = dim
        self._decoder_cell = nn.LSTMCell(dim, dim)
        self._output_projection_layer = nn.Linear(dim, target_vocab_size)
        self._start_index = start_index
        self._max_decoding_steps = max_decoding_steps

    def forward(self, source_tokens, target_tokens=None):
        embedded_input = self._source_embedder(source_tokens)
        batch_size, _, _ = embedded_input.size()
        encoder_outputs, _ = self._encoder(embedded_input)
        final_encoder_output = encoder_outputs[:, -1]
        if target_tokens is not None:
            num_decoding_steps = target_tokens.size(1) - 1
        else:
            num_decoding_steps = self._max_decoding_steps
        decoder_hidden = final_encoder_output
        decoder_context = encoder_outputs.new().resize_(batch_size, self._decoder_output_dim).fill_(0)  # <- fixed
        last_predictions = None
        step_logits = []
        for timestep in range(num_decoding_steps):
            if target_tokens is not None:
                input_choices = target_tokens[:, timestep]
            elif timestep == 0:
                input_choices = source_tokens.new().resize_(batch_size).fill_(self._start_index)  # <- fixed
            else:
                input_choices = last_predictions
            decoder_input = self._target_embedder(input_choices)
            decoder_hidden, decoder_context = self._decoder_cell(decoder_input, (decoder_hidden, decoder_context))
            output_projections = self._output_projection_layer(decoder_hidden)
            step_logits.append(output_projections.unsqueeze(1))
            last_predictions = F.softmax(output_projections, dim=-1).argmax(-1)
        return torch.cat(step_logits, 1)
