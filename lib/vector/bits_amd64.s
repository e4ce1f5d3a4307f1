#include "textflag.h"

// func scanBitsAVX2(codes *byte, fac *float32, lut *byte, nbytes, nblocks int, par *[2]float32, bar float32, est *float32, masks *uint32)
//
// Per block of 32 rows: for each pair of code bytes (32 rows each), split
// the bytes into nibbles, look each up in its 16-entry table (VPSHUFB;
// entries biased by 32), add the four results as bytes (the signed sum
// biased by 128: 16 to 240), then accumulate into 16-bit lanes: Y8 gets byte pairs
// as words (even row + 256·odd row), Y9 the odd rows alone; even = Y8 −
// 256·Y9 at the end (mod 2^16, exact: every sum is < 2^16). Per group of 8
// rows (blockRow order) the sums lose their bias and become estimates
// est = a·(ip·2Δ − Δ·U); mask bit = est ≥ bar.
//
// Constants reach the vector registers by VMOVD, never MOVL: the legacy
// SSE encoding cost ~300 ns per call (a one-block call took 374 ns, 61 ns
// with VMOVD), and bitBar calls this once per sampled block.
TEXT ·scanBitsAVX2(SB), NOSPLIT, $0-72
	MOVQ codes+0(FP), DI
	MOVQ fac+8(FP), R8
	MOVQ lut+16(FP), R9
	MOVQ nbytes+24(FP), R10
	SHRQ $1, R10
	MOVQ nblocks+32(FP), R11
	MOVQ par+40(FP), AX
	MOVQ est+56(FP), R12
	MOVQ masks+64(FP), R13
	VBROADCASTSS (AX), Y13
	VBROADCASTSS 4(AX), Y11
	VBROADCASTSS bar+48(FP), Y14
	MOVL $0x0f0f0f0f, AX
	VMOVD AX, X15
	VPBROADCASTD X15, Y15
	MOVQ R10, AX
	SHLQ $7, AX // the bias: 128 per step
	VMOVD AX, X12
	VPBROADCASTD X12, Y12

block:
	VPXOR Y8, Y8, Y8
	VPXOR Y9, Y9, Y9
	MOVQ  R9, SI
	MOVQ  R10, CX

inner:
	PREFETCHT0 4096(DI)
	VMOVDQU    (DI), Y0
	VMOVDQU    32(DI), Y1
	VPSRLW     $4, Y0, Y2
	VPSRLW     $4, Y1, Y3
	VPAND      Y15, Y0, Y0
	VPAND      Y15, Y1, Y1
	VPAND      Y15, Y2, Y2
	VPAND      Y15, Y3, Y3
	VMOVDQU    (SI), Y4
	VPSHUFB    Y0, Y4, Y4
	VMOVDQU    64(SI), Y5
	VPSHUFB    Y2, Y5, Y5
	VMOVDQU    32(SI), Y6
	VPSHUFB    Y1, Y6, Y6
	VMOVDQU    96(SI), Y7
	VPSHUFB    Y3, Y7, Y7
	VPADDB     Y5, Y4, Y4
	VPADDB     Y7, Y6, Y6
	VPADDB     Y6, Y4, Y4
	VPADDW     Y4, Y8, Y8
	VPSRLW     $8, Y4, Y4
	VPADDW     Y4, Y9, Y9
	ADDQ       $64, DI
	ADDQ       $128, SI
	DECQ       CX
	JNZ        inner

	VPSLLW       $8, Y9, Y4
	VPSUBW       Y4, Y8, Y8
	VPMOVZXWD    X8, Y0
	VEXTRACTI128 $1, Y8, X1
	VPMOVZXWD    X1, Y1
	VPMOVZXWD    X9, Y2
	VEXTRACTI128 $1, Y9, X3
	VPMOVZXWD    X3, Y3

	VPSUBD    Y12, Y0, Y0
	VCVTDQ2PS Y0, Y0
	VMULPS    Y13, Y0, Y0
	VSUBPS    Y11, Y0, Y0
	VMULPS    (R8), Y0, Y0
	VMOVUPS   Y0, (R12)
	VCMPPS    $0x0d, Y14, Y0, Y4
	VMOVMSKPS Y4, DX

	VPSUBD    Y12, Y1, Y1
	VCVTDQ2PS Y1, Y1
	VMULPS    Y13, Y1, Y1
	VSUBPS    Y11, Y1, Y1
	VMULPS    32(R8), Y1, Y1
	VMOVUPS   Y1, 32(R12)
	VCMPPS    $0x0d, Y14, Y1, Y4
	VMOVMSKPS Y4, AX
	SHLL      $8, AX
	ORL       AX, DX

	VPSUBD    Y12, Y2, Y2
	VCVTDQ2PS Y2, Y2
	VMULPS    Y13, Y2, Y2
	VSUBPS    Y11, Y2, Y2
	VMULPS    64(R8), Y2, Y2
	VMOVUPS   Y2, 64(R12)
	VCMPPS    $0x0d, Y14, Y2, Y4
	VMOVMSKPS Y4, AX
	SHLL      $16, AX
	ORL       AX, DX

	VPSUBD    Y12, Y3, Y3
	VCVTDQ2PS Y3, Y3
	VMULPS    Y13, Y3, Y3
	VSUBPS    Y11, Y3, Y3
	VMULPS    96(R8), Y3, Y3
	VMOVUPS   Y3, 96(R12)
	VCMPPS    $0x0d, Y14, Y3, Y4
	VMOVMSKPS Y4, AX
	SHLL      $24, AX
	ORL       AX, DX

	MOVL DX, (R13)
	ADDQ $128, R8
	ADDQ $128, R12
	ADDQ $4, R13
	DECQ R11
	JNZ  block
	VZEROUPPER
	RET

// func prefetch(p unsafe.Pointer, n int)
// Asks for the n bytes at p (rounded up to 64-byte lines) to be cached.
TEXT ·prefetch(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	TESTQ CX, CX
	JLE  pfdone

pfloop:
	PREFETCHT0 (SI)
	ADDQ $64, SI
	SUBQ $64, CX
	JG   pfloop

pfdone:
	RET

// FWHT_STAGES applies the butterflies of the stages of span R9, 2·R9, …,
// up to R8/2 to the R8 floats at DI (R9 a multiple of 8); the arguments
// name its labels.
#define FWHT_STAGES(stage, group, pair, nextstage, done) \
stage: \
	CMPQ R9, R8; \
	JGE  done; \
	MOVQ R9, R10; \
	SHLQ $2, R10; \
	XORQ R11, R11; \
	MOVQ R8, R12; \
	SHLQ $2, R12; \
group: \
	CMPQ R11, R12; \
	JGE  nextstage; \
	LEAQ (DI)(R11*1), SI; \
	LEAQ (SI)(R10*1), DX; \
	MOVQ R9, CX; \
pair: \
	VMOVUPS (SI), Y0; \
	VMOVUPS (DX), Y1; \
	VADDPS  Y1, Y0, Y2; \
	VSUBPS  Y1, Y0, Y3; \
	VMOVUPS Y2, (SI); \
	VMOVUPS Y3, (DX); \
	ADDQ    $32, SI; \
	ADDQ    $32, DX; \
	SUBQ    $8, CX; \
	JNZ     pair; \
	LEAQ    (R11)(R10*2), R11; \
	JMP     group; \
nextstage: \
	SHLQ $1, R9; \
	JMP  stage; \
done:

// func fwhtRoundAVX2(x *float32, flip *uint32, n int)
// One round of the rotation: x ^= flip (sign bits), then the whole
// Walsh–Hadamard transform of x[:n] (n a power of two ≥ 16). The first
// three stages run within each 8-float register: the partner of every
// lane comes from a permutation, both the sum and the difference are
// formed and blended, so each output is the same single addition or
// subtraction of the same operands as fwht8's (bit for bit).
TEXT ·fwhtRoundAVX2(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), DI
	MOVQ flip+8(FP), SI
	MOVQ n+16(FP), R8
	MOVQ DI, DX
	MOVQ R8, CX

eight:
	VMOVUPS (DX), Y0
	VXORPS  (SI), Y0, Y0
	// span 1: lanes pair (0,1) (2,3) …
	VPERMILPS $0xB1, Y0, Y1
	VADDPS    Y1, Y0, Y2
	VSUBPS    Y0, Y1, Y3
	VBLENDPS  $0xAA, Y3, Y2, Y0
	// span 2
	VPERMILPS $0x4E, Y0, Y1
	VADDPS    Y1, Y0, Y2
	VSUBPS    Y0, Y1, Y3
	VBLENDPS  $0xCC, Y3, Y2, Y0
	// span 4: swap the 128-bit halves
	VPERM2F128 $0x01, Y0, Y0, Y1
	VADDPS     Y1, Y0, Y2
	VSUBPS     Y0, Y1, Y3
	VBLENDPS   $0xF0, Y3, Y2, Y0
	VMOVUPS    Y0, (DX)
	ADDQ       $32, DX
	ADDQ       $32, SI
	SUBQ       $8, CX
	JNZ        eight
	MOVQ       $8, R9
	FWHT_STAGES(rstage, rgroup, rpair, rnext, rdone)
	VZEROUPPER
	RET
