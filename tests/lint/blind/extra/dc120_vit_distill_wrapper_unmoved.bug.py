# devcheck bug corpus: DC120
# From: https://github.com/lucidrains/vit-pytorch/pull/324
# A distillation wrapper (an nn.Module that is the training loss) holds the
# teacher and the student but also parameters of its own: a distillation
# token and a distillation head. Training moved the student and the teacher
# to the GPU and called the wrapper, which was never moved, so its token
# and head met the student's activations on the GPU: a device mismatch hard
# to trace. The fix moves the wrapper to the device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Student(nn.Module):
    def __init__(self, dim=64, num_classes=10):
        super().__init__()
        self.patch = nn.Linear(48, dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, img, distill_token=None):
        tokens = self.patch(img.flatten(2).transpose(1, 2))
        if distill_token is not None:
            tokens = torch.cat([tokens, distill_token.expand(tokens.shape[0], -1, -1)], dim=1)
        return self.head(tokens[:, :-1].mean(1)), tokens[:, -1]


class DistillWrapper(nn.Module):
    def __init__(self, teacher, student, dim=64, num_classes=10, temperature=1.0, alpha=0.5):
        super().__init__()
        self.teacher = teacher
        self.student = student
        self.temperature = temperature
        self.alpha = alpha
        self.distillation_token = nn.Parameter(torch.randn(1, 1, dim))
        self.distill_mlp = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, num_classes))

    def forward(self, img, labels):
        with torch.no_grad():
            teacher_logits = self.teacher(img)
        student_logits, distill_tokens = self.student(img, distill_token=self.distillation_token)
        distill_logits = self.distill_mlp(distill_tokens)
        loss = F.cross_entropy(student_logits, labels)
        distill_loss = F.kl_div(
            F.log_softmax(distill_logits / self.temperature, dim=-1),
            F.softmax(teacher_logits / self.temperature, dim=-1),
            reduction="batchmean",
        )
        return loss * (1 - self.alpha) + distill_loss * self.alpha


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    teacher = nn.Sequential(nn.Flatten(), nn.Linear(3 * 16 * 16, 10)).to(device)
    student = Student().to(device)
    distiller = DistillWrapper(teacher, student)  # <- bug
    optimizer = torch.optim.Adam(distiller.parameters(), lr=1e-3)
    img = torch.randn(2, 3, 16, 16).to(device)
    labels = torch.randint(0, 10, (2,)).to(device)
    loss = distiller(img, labels)
    loss.backward()
    optimizer.step()


if __name__ == "__main__":
    main()
