"""An example unsupervised feature-selection method that lives outside ufsbench."""
