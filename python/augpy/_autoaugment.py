"""torchvision's AutoAugment (transforms.v2.AutoAugment) as a batch stage: the fixed ImageNet,
CIFAR-10 and SVHN policies of Cubuk et al. (25 sub-policies of two (op, probability, magnitude
bin) each, torchvision's tables), each image of a batch drawing its sub-policy, each op's
application and each signed magnitude's sign from the seed model (stream 'AutoAugment').
The image's augmentation dict records the ops it ran as ``'policy'`` (replayed as RandAugment
replays it) and the sub-policy's index as ``'sub_policy'``.

The magnitudes are torchvision's: bin b of the RandAugment table computed with 10 bins
(augpy/_policies.py); Invert is AutoAugment's fifteenth op."""
from ._policies import RAND_AUGMENT, _Policy

AUTO_AUGMENT = {op: v for op, v in RAND_AUGMENT.items() if op != "Identity"}
AUTO_AUGMENT["Invert"] = (None, False)

POLICIES = {
    "imagenet": (
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
        (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)),
        (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)),
        (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)),
        (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)),
        (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)),
        (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
    ),
    "cifar10": (
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)),
        (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)),
        (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)),
        (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)),
        (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)),
        (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)),
        (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)),
        (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)),
        (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)),
        (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)),
        (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)),
        (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)),
        (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None)),
    ),
    "svhn": (
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)),
        (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)),
        (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)),
        (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)),
        (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)),
        (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)),
        (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)),
        (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None)),
    ),
}


class AutoAugment(_Policy):
    """torchvision's ``AutoAugment(policy, interpolation, fill)`` on a uint8, uint16 or float32 (N, C,
    H, W) batch, in place: each image draws one of the policy's 25 sub-policies uniformly, then
    applies each of its two ops with the op's probability, at the op's magnitude bin of the
    10-bin table, a signed magnitude negated with probability 1/2. ``policy``: 'imagenet',
    'cifar10' or 'svhn'. Each augmentation dict gets ``'policy'`` (the (op, magnitude) list the
    image ran; replayed when given) and ``'sub_policy'`` (the drawn index). Draws follow the
    seed model (stream 'AutoAugment')."""

    space = AUTO_AUGMENT

    def __init__(self, policy="imagenet", interpolation="nearest", fill=0, seed=None):
        func = "AutoAugment"
        self._params = dict(policy=policy, interpolation=interpolation, fill=fill, seed=seed)
        if not isinstance(policy, str) or policy.lower() not in POLICIES:
            raise ValueError(f"{func}: policy must be 'imagenet', 'cifar10' or 'svhn', got {policy!r}")
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError(f"{func}: interpolation must be 'nearest' or 'bilinear', got {interpolation!r}")
        self.policy = policy.lower()
        self.sub_policies = POLICIES[self.policy]
        self.interpolation, self.fill = interpolation, fill
        self.draws = 5  # the sub-policy, then (apply?, sign) per op
        self._init_sampling(seed)

    def _record(self, u, h, w):
        index = min(int(u[0] * len(self.sub_policies)), len(self.sub_policies) - 1)
        ops = []
        for j, (op, p, b) in enumerate(self.sub_policies[index]):
            if not u[1 + 2 * j] <= p:
                continue
            table, signed = self.space[op]
            m = 0.0
            if table is not None:
                m = float(table(10, h, w)[b])
                if signed and u[2 + 2 * j] <= 0.5:
                    m = -m
            ops.append((op, m))
        return {"policy": ops, "sub_policy": index}

    def _draw(self, u, h, w):
        return self._record(u, h, w)["policy"]
