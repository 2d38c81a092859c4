import numpy as np


def ref_conv(img, k):
    kh, kw = k.shape
    oh, ow = img.shape[0] - kh + 1, img.shape[1] - kw + 1
    out = np.zeros((oh, ow))
    for i in range(kh):
        for j in range(kw):
            out += img[i:i + oh, j:j + ow] * k[i, j]
    return out


def check(mod):
    rng = np.random.default_rng(4)
    out = []
    for (h, w), (kh, kw) in (((5, 5), (5, 5)), ((64, 48), (3, 3)), ((300, 200), (7, 5))):
        img, k = rng.random((h, w)), rng.random((kh, kw))
        got = mod.conv2d(img, k)
        assert np.allclose(got, ref_conv(img, k), rtol=1e-12, atol=1e-12)
        out.append(got)
    # a strided view of an image is a valid buffer (mode is 'strided')
    img = rng.random((40, 40))
    got = mod.conv2d(img[::2, 1::3], np.ones((2, 2)))
    assert np.allclose(got, ref_conv(img[::2, 1::3], np.ones((2, 2))))
    out.append(got)
    try:
        mod.conv2d(np.ones((2, 2)), np.ones((3, 3)))
    except ValueError as e:
        assert "kernel larger" in str(e)
    else:
        raise AssertionError("no ValueError")
    return out
