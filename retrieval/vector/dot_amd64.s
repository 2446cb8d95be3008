#include "textflag.h"

// func dotAVX2(r, q []int8) int32
//
// The dot product of the first len(q) bytes of r and q, len(q) a multiple
// of 32, with AVX2: |r| (unsigned) times q with r's sign (signed), in
// pairs to 16 bits (VPMADDUBSW), then to 32 bits (VPMADDWD by ones). The
// caller keeps -128 out of q (its sign cannot be flipped in 8 bits).
TEXT ·dotAVX2(SB), NOSPLIT, $0-52
	MOVQ r_base+0(FP), SI
	MOVQ q_base+24(FP), DI
	MOVQ q_len+32(FP), CX
	VPXOR Y0, Y0, Y0
	VPCMPEQW Y5, Y5, Y5
	VPSRLW $15, Y5, Y5

loop:
	CMPQ CX, $32
	JLT done
	VMOVDQU (SI), Y1
	VMOVDQU (DI), Y2
	VPSIGNB Y1, Y2, Y3
	VPABSB Y1, Y4
	VPMADDUBSW Y3, Y4, Y4
	VPMADDWD Y5, Y4, Y4
	VPADDD Y4, Y0, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $32, CX
	JMP loop

done:
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, AX
	VZEROUPPER
	MOVL AX, ret+48(FP)
	RET
