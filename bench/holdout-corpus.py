"""A holdout corpus: photos and edits cull's features were not developed on.

Usage: python3 bench/holdout-corpus.py OUT_DIR

33 source images that the development corpus (../shared/corpus/build-corpus.py) does not use:
other KDE Plasma and MATE wallpapers from the same Debian packages (run build-corpus.py first:
it downloads them into ~/.cache/photo-corpus) and other scikit-image sample images. Each gets
12 edits the development corpus does not have: an off-centre crop, a 10%-per-side crop, a crop
of one side, a translucent logo, a caption, contrast, gamma, grayscale, a small low-quality
copy, EXIF orientation 8 and sharpening. Writes OUT_DIR/photos/... and OUT_DIR/truth.csv in
the development corpus's format, so ../shared/corpus/score.py scores it.

Two of the sources are the same artwork in a warm and a cold palette (Ubuntu MATE wallpapers):
a deliberate hard case for luminance-only features.
"""
import csv, os, sys, glob
from PIL import Image, ImageEnhance, ImageFilter, ImageDraw, ImageOps
import skimage
R = os.path.expanduser("~/.cache/photo-corpus/root/usr/share")
src = []
for s in ["Cascade", "Cluster", "Elarun", "Flow", "FlyingKonqui", "IceCold", "Kay", "Kokkini", "Patak"]:
    c = [p for p in glob.glob(f"{R}/wallpapers/{s}/contents/images/*") if os.path.isfile(p)]
    if c: src.append((f"plasma-{s}", max(c, key=os.path.getsize)))
for p in ["abstract/Elephants.jpg", "abstract/Gulp.png", "abstract/Silk.png", "abstract/Spring.png", "abstract/Waves.png",
          "desktop/GreenTraditional.jpg", "desktop/MATE-Stripes-Dark.png", "desktop/Ubuntu-Mate-Cold-no-logo.png",
          "desktop/Ubuntu-Mate-Warm-no-logo.png"]:
    src.append(("mate-" + os.path.splitext(os.path.basename(p))[0], f"{R}/backgrounds/mate/{p}"))
D = os.path.join(os.path.dirname(skimage.__file__), "data")
for s in ["brick.png", "coins.png", "grass.png", "gravel.png", "horse.png", "moon.png", "page.png", "retina.jpg",
          "text.png", "cell.png", "ihc.png", "clock_motion.png", "color.png", "microaneurysms.png", "motorcycle_right.png"]:
    src.append(("skimage-" + s.split(".")[0], os.path.join(D, s)))
out = sys.argv[1]
def load(p):
    im = Image.open(p); im.load()
    if im.mode in ("RGBA", "LA", "P"):
        im = im.convert("RGBA"); bg = Image.new("RGBA", im.size, (128,128,128,255)); im = Image.alpha_composite(bg, im).convert("RGB")
    elif im.mode not in ("RGB", "L"): im = im.convert("RGB")
    w, h = im.size
    if max(w, h) > 3000:
        s = 3000 / max(w, h); im = im.resize((round(w*s), round(h*s)), Image.LANCZOS)
    return im.convert("RGB")
def edit(t, im):
    w, h = im.size
    if t == "original": return im, None
    if t == "crop_asym": return im.crop((int(w*.07), int(h*.02), int(w*.99), int(h*.94))), None
    if t == "crop10": return im.crop((w//10, h//10, w - w//10, h - h//10)), None
    if t == "crop3_left": return im.crop((int(w*.03), 0, w, h)), None
    if t == "logo_bl":
        c = im.copy(); d = ImageDraw.Draw(c, "RGBA"); s = max(12, h // 20)
        d.rectangle((s//2, h - s*2, s*6, h - s//2), fill=(20, 20, 20, 160)); d.text((s, h - s*1.6), "studio", fill=(255,255,255,255))
        return c, None
    if t == "caption":
        c = im.copy(); d = ImageDraw.Draw(c); s = max(10, h // 30)
        d.text((w*0.3, h - s*2), "Holiday 2025 - the lake house", fill=(255, 255, 0)); d.text((w*0.3+1, h - s*2+1), "Holiday 2025 - the lake house", fill=(255,255,0))
        return c, None
    if t == "contrast": return ImageEnhance.Contrast(im).enhance(1.3), None
    if t == "gamma": return im.point(lambda v: int(255 * (v / 255) ** 0.7)), None
    if t == "gray": return ImageOps.grayscale(im).convert("RGB"), None
    if t == "small_q70":
        s = 640 / max(w, h); return im.resize((round(w*s), round(h*s)), Image.LANCZOS), 70
    if t == "exif_rot270":
        return im.transpose(Image.ROTATE_270), "rot"
    if t == "sharpen": return im.filter(ImageFilter.UnsharpMask(2, 80, 2)), None
    raise ValueError(t)
T = ["original", "crop_asym", "crop10", "crop3_left", "logo_bl", "caption", "contrast", "gamma", "gray", "small_q70", "exif_rot270", "sharpen"]
rows = []
for name, p in src:
    im = load(p); os.makedirs(f"{out}/photos/{name}", exist_ok=True)
    for t in T:
        e, extra = edit(t, im); f = f"{out}/photos/{name}/{t}.jpg"
        if extra == "rot":
            ex = Image.Exif(); ex[0x0112] = 8; e.save(f, "JPEG", quality=90, exif=ex.tobytes())
        else:
            e.save(f, "JPEG", quality=extra or 90)
        rows.append((os.path.relpath(f, out), name, t))
    print(name, file=sys.stderr)
with open(f"{out}/truth.csv", "w", newline="") as fh:
    wr = csv.writer(fh); wr.writerow(["path", "group", "transform"]); wr.writerows(rows)
print(len(rows), "files in", len(src), "groups")
