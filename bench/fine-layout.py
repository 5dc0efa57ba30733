#!/usr/bin/env python3
"""What a finer layout thumbnail would buy LocalChange (a design measurement, not cull's code).

For every real edit and every burst negative of the given corpora (../shared/corpus layout:
truth.csv with path, group, transform), compares the transformed file with its scene's original
on their *true* alignment (each transform's geometry, below) with a Python copy of
LocalChange's rule: tone match by rank, a cell changed when more than 6 gray levels outside the
other view's 3x3 range, changed cells within a cell of each other one region, flat regions
(opaque overlays) left out, the least largest region over rotations of 0, +-2 and +-4 degrees.
It prints the largest region's share of the frame for each grid in SIDES: THUMBNAIL:GRID pairs,
"32:24" being what cull does today (a 32x32 layout thumbnail, compared at 24x24).

Captions and the hard set's 4-degree rotated crop are judged on other windows in cull and are
left out here (rotate4_crop) or show their caption band (caption_bottom_big, always over 5.5%).

Usage: SIDES=32:24,64:48 [ONLY=burst_zoom,burst_pan] python3 bench/fine-layout.py CORPUS...
Needs pillow, pillow-heif, numpy and scipy. bench/RESULTS.md, "A finer layout for local change".
"""
import csv, os, sys, math, numpy as np
from PIL import Image, ImageOps
from scipy import ndimage
import pillow_heif; pillow_heif.register_heif_opener()
FULL=(0,0,1,1)
# transform: (window of the original, window of the transformed file), each (x, y, width, height)
# as fractions of its frame; the rest are whole frames.
GEO = {
 'border_white12': (FULL, (0, .12/1.24, 1, 1/1.24)), 'crop22_top': ((0,.22,1,.78), FULL),
 'crop15_two': ((.15,0,.85,.9), FULL), 'webp_crop10': ((.1,.1,.8,.8), FULL),
 'burst_pan': ((.05,0,.95,1), (0,0,.95,1)), 'burst_zoom': ((.02,.02,.96,.96), FULL),
 'crop5': ((.05,.05,.9,.9), FULL), 'crop_asym': ((.07,.02,.92,.92), FULL), 'crop10': ((.1,.1,.8,.8), FULL),
 'crop3_left': ((.03,0,.97,1), FULL),
}
def luma(path):
    im = ImageOps.exif_transpose(Image.open(path)); return im.convert('L')
def thumb(im, side): return np.asarray(im.resize((side, side), Image.BOX), float)
def view(t, win, n, up=8):
    S = t.shape[0]*up; T = np.kron(t, np.ones((up,up)))
    x,y,w,h = win; out = np.zeros((n,n))
    for j in range(n):
        y0=int(round((y+h*j/n)*S)); y1=max(y0+1,int(round((y+h*(j+1)/n)*S)))
        for i in range(n):
            x0=int(round((x+w*i/n)*S)); x1=max(x0+1,int(round((x+w*(i+1)/n)*S)))
            out[j,i]=T[y0:y1,x0:x1].mean()
    return out
def rotate(v, deg):
    n=v.shape[0]; a=math.radians(deg); c,s=math.cos(a),math.sin(a); ce=(n-1)/2
    yy,xx=np.mgrid[0:n,0:n]; dx=xx-ce; dy=yy-ce
    sx=np.clip(c*dx+s*dy+ce,0,n-1); sy=np.clip(-s*dx+c*dy+ce,0,n-1)
    return ndimage.map_coordinates(v,[sy,sx],order=1)
def tone(a, b):
    ra = np.argsort(np.argsort(a.ravel(), kind='stable'), kind='stable'); sb=np.sort(b.ravel())
    return sb[ra].reshape(a.shape)
def rng(a): return ndimage.minimum_filter(a,3,mode='nearest'), ndimage.maximum_filter(a,3,mode='nearest')
def changed(A,B,tol):
    lo,hi=rng(A); m=(B<lo-tol)|(B>hi+tol); lo,hi=rng(B); return m|(A<lo-tol)|(A>hi+tol)
def isflat(v,m):
    vals=v[m]; med=np.median(vals); return 2*np.sum(np.abs(vals-med)<=3)>=len(vals)
K=np.ones((3,3))
def largest(m,A,B):
    grown=ndimage.binary_dilation(m,structure=K); lab,n=ndimage.label(grown,structure=K); best=0
    for i in range(1,n+1):
        r=(lab==i)&m; c=r.sum()
        if c>best and not isflat(A,r) and not isflat(B,r): best=c
    return best
def local(a, b, n, tol=6):
    best=1e9
    for d in (0,-2,2,-4,4):
        A = a if d==0 else rotate(a,d); M=tone(A,b); m=changed(M,b,tol)
        best=min(best, largest(m,M,b)/n/n)
    return best
def pairs(root):
    rows=list(csv.DictReader(open(os.path.join(root,'truth.csv'))))
    orig={r['group']:r['path'] for r in rows if r['transform']=='original'}
    for r in rows:
        if r['transform']=='original' or r['transform'].startswith('distract'): continue
        g=r['group'].split('#')[0]
        if g in orig: yield r['transform'], os.path.join(root,orig[g]), os.path.join(root,r['path'])
SIDES=[tuple(map(int,s.split(":"))) for s in os.environ.get("SIDES","32:24,64:48").split(",")]
ONLY=os.environ.get("ONLY","").split(",")
for root in sys.argv[1:]:
    for t,pa,pb in pairs(root):
        if t=='rotate4_crop' or (ONLY[0] and t not in ONLY): continue
        ga,gb=GEO.get(t,(FULL,FULL))
        ia,ib=luma(pa),luma(pb)
        if t=='mirror': ia=ImageOps.mirror(ia)
        row=[]
        for side,n in SIDES:
            ta,tb=thumb(ia,side),thumb(ib,side)
            row.append(local(view(ta,ga,n),view(tb,gb,n),n))
        print(t, os.path.basename(os.path.dirname(pa)), ' '.join('%.3f'%x for x in row), flush=True)
