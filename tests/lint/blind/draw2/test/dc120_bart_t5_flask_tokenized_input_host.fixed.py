# devcheck bug corpus: DC120
# From: https://github.com/renatoviolin/Bart_T5-summarization/issues/2
# From: https://github.com/renatoviolin/Bart_T5-summarization/commit/064dae5b9276719acc7ea597dedfe0588b5c3509
# Fixed: the encoded input (and T5's task prefix, and their concatenation)
# is sent to the device before generate().
# Written for devcheck's tests after the thread; not the project's code.
import flask
import torch
from flask import Flask, request
from transformers import BartForConditionalGeneration, BartTokenizer
from transformers import T5ForConditionalGeneration, T5Tokenizer

BART_PATH = "facebook/bart-large-cnn"
T5_PATH = "t5-base"

app = Flask(__name__)
bart_model = BartForConditionalGeneration.from_pretrained(BART_PATH)
bart_tokenizer = BartTokenizer.from_pretrained(BART_PATH)
t5_model = T5ForConditionalGeneration.from_pretrained(T5_PATH)
t5_tokenizer = T5Tokenizer.from_pretrained(T5_PATH)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def bart_summarize(input_text, num_beams=4, num_words=50):
    input_text = " ".join(str(input_text).split())
    input_tokenized = bart_tokenizer.encode(input_text, return_tensors="pt").to(device)  # <- fixed
    summary_ids = bart_model.generate(input_tokenized, num_beams=int(num_beams), no_repeat_ngram_size=3,
                                      min_length=30, max_length=int(num_words), early_stopping=True)
    return bart_tokenizer.decode(summary_ids[0], skip_special_tokens=True)


def t5_summarize(input_text, num_beams=4, num_words=50):
    input_text = " ".join(str(input_text).replace("\n", "").split())
    input_tokenized = t5_tokenizer.encode(input_text, return_tensors="pt").to(device)  # <- fixed
    summary_task = torch.tensor([[21603, 10]]).to(device)  # <- fixed
    input_tokenized = torch.cat([summary_task, input_tokenized], dim=-1).to(device)  # <- fixed
    summary_ids = t5_model.generate(input_tokenized, num_beams=int(num_beams), no_repeat_ngram_size=3,
                                    min_length=30, max_length=int(num_words), early_stopping=True)
    return t5_tokenizer.decode(summary_ids[0], skip_special_tokens=True)


@app.route("/predict", methods=["POST"])
def predict():
    sentence = request.json["input_text"]
    num_words = request.json["num_words"]
    num_beams = request.json["num_beams"]
    if request.json["model"].lower() == "bart":
        output = bart_summarize(sentence, num_beams, num_words)
    else:
        output = t5_summarize(sentence, num_beams, num_words)
    return flask.jsonify({"response": {"summary": output}})


if __name__ == "__main__":
    bart_model.to(device)
    bart_model.eval()
    t5_model.to(device)
    t5_model.eval()
    app.run(debug=True, use_reloader=False)
