#include "textflag.h"

// func dotsI8AVX2(q *int16, codes *int8, stride, rows int, out *int32)
// For each row: sign-extend 16 code bytes to int16, multiply-add pairs with
// the int16 query (VPMADDWD) into int32 lanes, two accumulators, then sum.
TEXT ·dotsI8AVX2(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), R8
	MOVQ codes+8(FP), DI
	MOVQ stride+16(FP), R9
	MOVQ rows+24(FP), R10
	MOVQ out+32(FP), R11
	TESTQ R10, R10
	JZ   done

row:
	MOVQ  R8, SI
	MOVQ  R9, CX
	VPXOR Y0, Y0, Y0
	VPXOR Y5, Y5, Y5

inner:
	VPMOVSXBW (DI), Y1
	VPMADDWD  (SI), Y1, Y1
	VPADDD    Y1, Y0, Y0
	VPMOVSXBW 16(DI), Y2
	VPMADDWD  32(SI), Y2, Y2
	VPADDD    Y2, Y5, Y5
	ADDQ      $32, DI
	ADDQ      $64, SI
	SUBQ      $32, CX
	JNZ       inner

	VPADDD       Y5, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	MOVL         AX, (R11)
	ADDQ         $4, R11
	DECQ         R10
	JNZ          row
	VZEROUPPER

done:
	RET
