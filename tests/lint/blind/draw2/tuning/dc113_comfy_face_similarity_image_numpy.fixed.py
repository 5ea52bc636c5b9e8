# devcheck bug corpus: DC113
# From: https://github.com/chflame163/ComfyUI_FaceSimilarity/issues/10
# Fixed as the thread says: the image is copied to the host with cpu()
# before the NumPy conversion.
# Written for devcheck's tests after the thread; not the project's code.
import cv2
import numpy as np
import torch


def tensor_to_cv2(image: torch.Tensor) -> np.ndarray:
    if image.dim() == 4:
        image = image.squeeze(0)
    arr = image.cpu().numpy()  # <- fixed
    arr = np.uint8(arr * 255 / max(float(arr.max()), 1e-6))
    return cv2.cvtColor(arr, cv2.COLOR_RGB2BGR)


class FaceSimilarityNode:
    @classmethod
    def INPUT_TYPES(cls):
        return {"required": {"image1": ("IMAGE",), "image2": ("IMAGE",), "detect_method": (["face_recognition"],)}}

    RETURN_TYPES = ("FLOAT",)
    RETURN_NAMES = ("similarity",)
    FUNCTION = "face_similarity"
    CATEGORY = "FaceSimilarity"

    def face_similarity(self, image1, image2, detect_method):
        img1 = tensor_to_cv2(image1)
        img2 = tensor_to_cv2(image2)
        similarity = 0.0
        if detect_method == "face_recognition":
            import face_recognition

            enc1 = face_recognition.face_encodings(img1, face_recognition.face_locations(img1))[0]
            enc2 = face_recognition.face_encodings(img2, face_recognition.face_locations(img2))[0]
            similarity = face_recognition.face_distance([enc1], enc2)[0]
        return (round((1 - similarity) * 100, 2),)


NODE_CLASS_MAPPINGS = {"Face Similarity": FaceSimilarityNode}
