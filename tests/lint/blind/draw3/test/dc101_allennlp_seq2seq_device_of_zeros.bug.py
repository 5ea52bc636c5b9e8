# devcheck bug corpus: DC101
# From: https://github.com/allenai/allennlp/pull/433
# The simple seq2seq model made its initial decoder context and its start
# symbols with torch.zeros / torch.LongTensor inside
# `with torch.cuda.device_of(decoder_hidden):`, thinking that would create
# them on the device of the encoder's outputs. device_of only selects the
# current CUDA device; the factories still make CPU tensors, which met the
# decoder cell and the target embedding on the GPU.
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
        with torch.cuda.device_of(decoder_hidden):
            decoder_context = torch.zeros(1, self._decoder_output_dim)  # <- bug
        last_predictions = None
        step_logits = []
        for timestep in range(num_decoding_steps):
            if target_tokens is not None:
                input_choices = target_tokens[:, timestep]
            elif timestep == 0:
                with torch.cuda.device_of(final_encoder_output):
                    input_choices = torch.LongTensor([self._start_index]).expand_as(final_encoder_output[:, 0])  # <- bug
            else:
                input_choices = last_predictions
            decoder_input = self._target_embedder(input_choices)
            decoder_hidden, decoder_context = self._decoder_cell(decoder_input, (decoder_hidden, decoder_context))
            output_projections = self._output_projection_layer(decoder_hidden)
            step_logits.append(output_projections.unsqueeze(1))
            last_predictions = F.softmax(output_projections, dim=-1).argmax(-1)
        return torch.cat(step_logits, 1)
