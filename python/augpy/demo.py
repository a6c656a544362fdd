"""augpy.demo: the batch augmentation demo. SCAFFOLD."""
