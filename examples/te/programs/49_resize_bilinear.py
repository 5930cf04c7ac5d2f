# Bilinear resize with half-pixel centres, as topi.image.resize2d with
# method="linear": source coordinates in float (astype), floor to the two
# neighbours, clamp into the image and interpolate. Upsampling a
# DeepLab-v3 feature map 1x256x33x33 to 129x129; the run uses 1x2x5x5 to
# 9x9.
import tvm
from tvm import te


def resize_bilinear(data, out_h, out_w):
    n, c, in_h, in_w = data.shape
    scale_h = in_h.astype("float32") / out_h
    scale_w = in_w.astype("float32") / out_w

    def _sample(b, ch, y, x):
        in_y = (y.astype("float32") + 0.5) * scale_h - 0.5
        in_x = (x.astype("float32") + 0.5) * scale_w - 0.5
        y0f = te.floor(in_y)
        x0f = te.floor(in_x)
        y_lerp = in_y - y0f
        x_lerp = in_x - x0f
        y0 = te.max(y0f.astype("int32"), 0)
        x0 = te.max(x0f.astype("int32"), 0)
        y1 = te.min(y0f.astype("int32") + 1, in_h - 1)
        x1 = te.min(x0f.astype("int32") + 1, in_w - 1)
        top = data[b, ch, y0, x0] * (1.0 - x_lerp) + data[b, ch, y0, x1] * x_lerp
        bottom = data[b, ch, y1, x0] * (1.0 - x_lerp) + data[b, ch, y1, x1] * x_lerp
        return top * (1.0 - y_lerp) + bottom * y_lerp

    return te.compute((n, c, out_h, out_w), _sample, name="resize", tag="resize")


for channels, in_size, out_size in [(256, 33, 129), (2, 5, 9)]:
    data = te.placeholder((1, channels, in_size, in_size), name="data")
    out = resize_bilinear(data, out_size, out_size)
    s = te.create_schedule(out.op)
    print(tvm.lower(s, [data, out], simple_mode=True))
