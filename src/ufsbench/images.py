"""Image archives as data matrices: decoding and the per-image conversions of the registry.

An ``image_zip`` registry entry (e.g. COIL-100, 7200 PNG files of 128 x 128 RGB) is read
by :func:`ufsbench.data.load_dataset` one member at a time: :func:`decode` turns the
bytes into an array, and the entry's ``image_transform`` (a name in
:data:`ufsbench.datasets.IMAGE_TRANSFORMS`, with its ``image_params``) turns it into a
small float image, flattened row by row into one row of ``X``.
"""

from __future__ import annotations

import io

import numpy as np


def decode(data: bytes) -> np.ndarray:
    """An image file's pixels: ``(h, w)`` for grey images, ``(h, w, 3)`` for colour ones.

    Values are scaled to [0, 1] (8-bit images are divided by 255, 16-bit ones by 65535);
    an alpha channel is dropped and a palette expanded to RGB.

    Raises
    ------
    ValueError
        The bytes are not an image Pillow can read.
    """
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            if image.mode in ("L", "RGB"):
                pixels, top = np.asarray(image), 255.0
            elif image.mode.startswith("I;16"):
                pixels, top = np.asarray(image), 65535.0
            elif image.mode in ("1", "LA"):
                pixels, top = np.asarray(image.convert("L")), 255.0
            else:  # RGBA, P, CMYK, YCbCr, ...
                pixels, top = np.asarray(image.convert("RGB")), 255.0
    except (UnidentifiedImageError, OSError, SyntaxError) as err:
        raise ValueError(f"not a readable image ({err})") from None
    return pixels.astype(np.float64) / top


def grey_resize(pixels, *, size, weights=(0.299, 0.587, 0.114), resample="box") -> np.ndarray:
    """A colour or grey image as a grey ``size`` image in [0, 1].

    Colour pixels become ``weights @ (R, G, B)`` divided by ``sum(weights)`` (the default
    is the ITU-R BT.601 luma, as in Pillow's ``convert("L")``, but computed in floating
    point, without rounding to 8 bits). The grey image is then resampled to ``size``
    with Pillow's filter of that name on 32-bit floats: ``box`` averages the input pixels
    each output pixel covers, i.e. the mean of 4 x 4 blocks for 128 -> 32.

    Parameters
    ----------
    pixels : ndarray of shape (h, w) or (h, w, 3)
        Values in [0, 1], as :func:`decode` returns them.
    size : sequence of 2 int
        Output ``(height, width)``.
    weights : sequence of 3 float, default=(0.299, 0.587, 0.114)
    resample : {"box", "bilinear", "bicubic", "lanczos"}, default="box"

    Returns
    -------
    ndarray of shape size, float64
    """
    from PIL import Image

    pixels = np.asarray(pixels, dtype=np.float64)
    if pixels.ndim == 3 and pixels.shape[2] == 3:
        w = np.asarray(weights, dtype=np.float64)
        grey = pixels @ (w / w.sum())
    elif pixels.ndim == 2:
        grey = pixels
    else:
        raise ValueError(f"expected an (h, w) or (h, w, 3) image, found shape {pixels.shape}")
    height, width = (int(v) for v in size)
    if grey.shape == (height, width):
        return grey.copy()
    filters = {
        "box": Image.Resampling.BOX,
        "bilinear": Image.Resampling.BILINEAR,
        "bicubic": Image.Resampling.BICUBIC,
        "lanczos": Image.Resampling.LANCZOS,
    }
    image = Image.fromarray(grey.astype(np.float32))  # 2-D float32: mode "F"
    resized = image.resize((width, height), resample=filters[resample])
    return np.asarray(resized, dtype=np.float64)


TRANSFORMS = {"grey_resize": grey_resize}

__all__ = ["TRANSFORMS", "decode", "grey_resize"]
