# devcheck bug corpus: DC101
# From: https://github.com/MusicLang/musiclang_predict/issues/7
# Fixed: the prompt ids are made on the model's device
# (device=model.device), so generation runs where the model is.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from transformers import GPT2LMHeadModel, StoppingCriteria, StoppingCriteriaList

from musiclang_predict import MusicLangTokenizer


class StoppingCriteriaSub(StoppingCriteria):
    def __init__(self, stops, encounters=1):
        super().__init__()
        self.stops = stops
        self.encounters = encounters

    def __call__(self, input_ids, scores, **kwargs):
        count = sum(int(token) in self.stops for token in input_ids[0])
        return count >= self.encounters


def model_pred_one_shot(inputs, nb, stop_words_ids, model, tokenizer, chord_duration, generation_config, nb_stop_word=1):
    prompt = inputs[-nb:]
    inputs = inputs[: len(inputs) - len(prompt)]
    prompt = torch.tensor([prompt], dtype=torch.long, device=model.device)  # <- fixed
    nb_encounters = len([i for i in prompt[0] if i in stop_words_ids])
    stopping_criteria = StoppingCriteriaList([StoppingCriteriaSub(stops=stop_words_ids, encounters=nb_encounters + nb_stop_word)])
    tokens = model.generate(prompt, stopping_criteria=stopping_criteria, **generation_config)[0]
    inputs += tokens.tolist()
    score = tokenizer.ids_to_score(inputs[:-1])
    score = score.arrange_chords_duration(chord_duration)
    return score, tokenizer.tokenize_to_ids(score, include_end=False)


def predict(model, tokenizer, prompt=None, chord_duration=4, prompt_size=1024, context_size=2048, nb_chords=1, temperature=0.9):
    stop_words_ids = [tokenizer["END"], tokenizer["CHORD_CHANGE"]]
    nb = context_size - prompt_size
    generation_config = dict(
        max_new_tokens=nb, min_new_tokens=0, do_sample=True, temperature=temperature, pad_token_id=tokenizer["END"]
    )
    inputs = tokenizer.tokenize_to_ids(prompt, include_end=False) if prompt else []
    score = None
    for _ in range(nb_chords):
        inputs = inputs + [tokenizer["CHORD_CHANGE"]]
        score, inputs = model_pred_one_shot(inputs, nb, stop_words_ids, model, tokenizer, chord_duration, generation_config)
    return score


if __name__ == "__main__":
    model = GPT2LMHeadModel.from_pretrained("musiclang/musiclang-4k").to("cuda")
    tokenizer = MusicLangTokenizer("musiclang/musiclang-4k")
    soundtrack = predict(model, tokenizer, chord_duration=4, nb_chords=8)
    soundtrack.to_midi("song.mid", tempo=120, time_signature=(4, 4))
