"""Copies a corpus and embeds camera-style previews, to measure `--previews auto`.

Usage: python3 bench/with-previews.py SRC_DIR OUT_DIR

Every JPEG gets an EXIF thumbnail (IFD1) of its own pixels, short side 120 and the same aspect
ratio, as cameras write them (needs `piexif` from PyPI); every HEIC is re-encoded with a
320-pixel thumbnail item by libheif's `heif-enc -t 320` (Debian: libheif-examples). PNG and
WebP have no preview. truth.csv is copied unchanged.
"""
import csv, io, os, shutil, subprocess, sys, tempfile

def main():
    src, dst = sys.argv[1], sys.argv[2]
    import piexif
    from PIL import Image
    import pillow_heif
    pillow_heif.register_heif_opener()
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    counts = {"jpeg": 0, "heic": 0}
    for row in csv.DictReader(open(os.path.join(dst, "truth.csv"))):
        path = os.path.join(dst, row["path"])
        if path.endswith(".jpg"):
            image = Image.open(path)
            w, h = image.size
            scale = 120 / min(w, h)
            buffer = io.BytesIO()
            image.convert("RGB").resize((round(w * scale), round(h * scale)), Image.LANCZOS).save(buffer, "JPEG", quality=75)
            try:
                exif = piexif.load(path)
            except Exception:
                exif = {"0th": {}, "Exif": {}, "GPS": {}, "1st": {}, "thumbnail": None}
            exif["1st"] = {piexif.ImageIFD.Compression: 6, piexif.ImageIFD.XResolution: (72, 1),
                           piexif.ImageIFD.YResolution: (72, 1)}
            exif["thumbnail"] = buffer.getvalue()
            piexif.insert(piexif.dump(exif), path)
            counts["jpeg"] += 1
        elif path.endswith(".heic"):
            with tempfile.NamedTemporaryFile(suffix=".png") as png:
                Image.open(path).convert("RGB").save(png.name)
                subprocess.run(["heif-enc", "-q", "60", "-t", "320", "-o", path, png.name],
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            counts["heic"] += 1
    print(f"previews embedded: {counts['jpeg']} JPEG, {counts['heic']} HEIC -> {dst}")

if __name__ == "__main__":
    main()
