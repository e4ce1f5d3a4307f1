#!/usr/bin/env bash
# Regenerates the small multimodal fixtures in this directory (committed, so
# tests need none of these tools). Needs (Debian): groff ghostscript qpdf
# poppler-utils imagemagick espeak-ng sox zip python3.
# usage: bash testdata/multimodal/make.sh
set -euo pipefail
cd "$(dirname "$0")"
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT

# digital.pdf: three pages with a real text layer (groff -> PostScript -> PDF).
cat > "$TMP/doc.ms" <<'MS'
.NH
Quarterly operations report
.PP
The deployment runbook says to restart the ingest worker with systemctl.
Invoice 4711 was paid on 15 March 2026.
.bp
.NH
Second page: storage
.PP
The vault code is stored in the secrets manager, never in the repository.
Chunks are 512 tokens with 64 tokens of overlap.
.bp
.NH
Third page: audio
.PP
Transcripts are split into thirty second windows with five seconds of overlap.
MS
groff -ms -Tps "$TMP/doc.ms" | ps2pdf - digital.pdf
# encrypted: AES-256 with a user password (unreadable), and RC4-128 with an
# empty user password (readable: viewers open it without asking).
qpdf --encrypt secret owner 256 -- digital.pdf encrypted-aes256.pdf
qpdf --allow-weak-crypto --encrypt "" owner 128 --use-aes=n -- digital.pdf encrypted-no-user-password.pdf
head -c 3000 digital.pdf > truncated.pdf
# scanned.pdf: page 1 rendered to a JPEG and wrapped as an image-only PDF.
pdftoppm -r 100 -f 1 -l 1 -jpeg -jpegopt quality=60 digital.pdf "$TMP/page"
VIEWJPEG=$(ls /usr/share/ghostscript/*/lib/viewjpeg.ps | head -1)
gs -q -sDEVICE=pdfwrite -o scanned.pdf "$VIEWJPEG" -c "($(ls "$TMP"/page*.jpg | head -1)) viewJPEG showpage"
# invoice.png: an image with text.
/usr/bin/convert -size 700x120 xc:white -font DejaVu-Sans -pointsize 30 -fill black \
  -annotate +20+50 "Invoice 4711: total due 1,234.56 EUR" \
  -annotate +20+100 "Payment deadline: 15 March 2026" -colors 2 invoice.png
# standup.wav: two seconds of speech, 8 kHz mono.
espeak-ng -v en-us -s 160 -w "$TMP/s.wav" "Good morning team. Review the quarterly budget."
sox "$TMP/s.wav" -r 8000 -c 1 -b 16 standup.wav
# archives
mkdir -p "$TMP/docs/sub"
echo "The deployment runbook: restart the ingest worker with systemctl restart dir2mcp-ingest." > "$TMP/docs/runbook.txt"
printf "# Design note\n\nChunks are 512 tokens with 64 tokens of overlap.\n" > "$TMP/docs/sub/design.md"
rm -f docs.zip nested.zip
( cd "$TMP" && zip -qrX "$OLDPWD/docs.zip" docs && tar --sort=name --mtime=2026-01-01 --owner=0 --group=0 -czf "$OLDPWD/docs.tar.gz" docs )
( cp docs.tar.gz "$TMP/inner.tar.gz" && cd "$TMP" && zip -qX "$OLDPWD/nested.zip" inner.tar.gz )
python3 - <<'PY'
import zipfile
with zipfile.ZipFile("zip-slip.zip", "w") as z:
    z.writestr("../../../../tmp/dir2mcp-zip-slip-canary.txt", "if this file exists outside the index, extraction is unsafe")
    z.writestr("/etc/dir2mcp-abs-path.txt", "absolute path entry")
    z.writestr("ok/inside.txt", "a safe member")
PY
ls -l
