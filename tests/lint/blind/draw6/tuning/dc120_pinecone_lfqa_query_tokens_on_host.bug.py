# devcheck bug corpus: DC120
# From: https://github.com/pinecone-io/examples/issues/214
# From: https://github.com/pinecone-io/examples/commit/8f4b5f47b630932b900aea2d270711686eaa3866
# The abstractive question-answering example put its BART generator on the
# GPU when one is there, but tokenized the question with context into CPU
# tensors and handed input_ids straight to generate(): on a CUDA machine the
# embedding lookup meets cpu and cuda:0.
# Written for devcheck's tests after the thread; not the project's code.
import pinecone
import torch
from sentence_transformers import SentenceTransformer
from transformers import BartForConditionalGeneration, BartTokenizer

pinecone.init(api_key="YOUR_API_KEY", environment="YOUR_ENV")
index = pinecone.Index("abstractive-question-answering")

device = "cuda" if torch.cuda.is_available() else "cpu"
retriever = SentenceTransformer("flax-sentence-embeddings/all_datasets_v3_mpnet-base", device=device)

tokenizer = BartTokenizer.from_pretrained("vblagoje/bart_lfqa")
generator = BartForConditionalGeneration.from_pretrained("vblagoje/bart_lfqa").to(device)


def search(question, top_k):
    vec = retriever.encode([question]).tolist()
    return index.query(vec, top_k=top_k, include_metadata=True)


def build_prompt(question, matches):
    passages = " ".join(f"<P> {m['metadata']['passage_text']}" for m in matches)
    return f"question: {question} context: {passages}"


def answer(prompt):
    enc = tokenizer([prompt], max_length=1024, return_tensors="pt")  # <- bug
    out_ids = generator.generate(enc["input_ids"], num_beams=2, min_length=20, max_length=40)
    return tokenizer.batch_decode(out_ids, skip_special_tokens=True, clean_up_tokenization_spaces=False)[0]


for question in ["When was the first electric power system built?",
                 "How was the first wireless message sent?"]:
    hits = search(question, top_k=3)
    print(answer(build_prompt(question, hits["matches"])))
