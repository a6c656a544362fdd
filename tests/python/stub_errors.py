"""Wrong uses of augpy that its stubs must make mypy --strict reject: test_stubs.py checks that
mypy reports exactly the error code after `# E:` on each marked line and nothing elsewhere
(not a test module itself: nothing here runs)."""
from typing import Any, Dict

import numpy as np

import augpy
import augpy.ray
import augpy.torch


def wrong(make: Any, tensor: augpy.Tensor) -> None:
    src = augpy.data.FolderSource("train")
    m = augpy.targets.resize_matrix((480, 640), 224)
    # augpy.torch: keywords, the source, the batch size, to_torch's argument
    augpy.torch.StageDataset(src, make, 4, seed=0, shufle=True, output="tuple")  # E: call-arg
    augpy.torch.StageDataset("train", make, 4)  # E: arg-type
    augpy.torch.StageDataset(src, make, batch_size="4")  # E: arg-type
    augpy.torch.StageDataset(src, make, 4).set_epoch("1")  # E: arg-type
    augpy.torch.to_torch(np.zeros(3))  # E: arg-type
    # augpy.image: constructor keywords, recipe keywords (**kwargs), the batch dict, results
    augpy.image.DecodeWarp(4, (3, 8, 8), dtpye=augpy.uint8)  # E: call-arg
    augpy.image.imagenet_train(4, transforms=[])  # E: call-arg
    augpy.image.imagenet_eval(4, seed=1)  # E: call-arg
    augpy.image.ImageNetTrain(4, hflip="yes")  # E: arg-type
    augpy.image.Lighting(4)(["image"])  # E: arg-type
    not_a_tensor: augpy.Tensor = augpy.image.Normalize(4)({"image": tensor})  # E: assignment
    # augpy.data: sources, samples, seeds, augment callables
    augpy.data.FolderSource(3)  # E: arg-type
    augpy.data.batches([(b"", "key")], 4)  # E: list-item
    augpy.data.epoch_order(10, seed=1.5)  # E: arg-type
    augpy.data.RandomWarp(angle=5)(0)  # E: arg-type
    not_a_str: str = src[0]  # E: assignment
    augpy.data.ShardSource("a.tar").samples(shuffle_buffer=None)  # E: arg-type
    # augpy.targets: numpy in gives numpy out, missing sizes, keywords
    boxes = np.zeros((1, 4))
    from_numpy: augpy.Tensor = augpy.targets.transform_boxes(boxes, m, (4, 4), (4, 4))[0]  # E: assignment
    augpy.targets.transform_boxes(tensor, m, (4, 4))  # E: call-overload
    augpy.targets.flip_matrix((4, 4), diagonal=True)  # E: call-arg
    augpy.targets.transform_batch_targets([tensor], [m], [(4, 4)], (4, 4))  # E: arg-type
    # augpy.ray: recipe keywords (**recipe), decode_augment's own max_batch_size, row keys
    augpy.ray.ImageNetTrain(root="train", sze=160)  # E: call-arg
    augpy.ray.decode_augment({"bytes": []}, max_batch_size=4)  # E: call-arg
    augpy.ray.row_key(3)  # E: arg-type
    augpy.ray.StageAugment(make, seed=0, on_eror="skip")  # E: call-arg
    batch: Dict[str, Any] = augpy.ray.DecodeAugment((3, 8, 8))([])  # E: arg-type
