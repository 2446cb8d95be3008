package tokens

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func terms(f func([]byte, func(Token)), s string) string {
	var out []string
	f([]byte(s), func(t Token) {
		if t.Part {
			out = append(out, "+"+t.Term)
		} else {
			out = append(out, t.Term)
		}
	})
	return strings.Join(out, " ")
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"getUserName", "get User Name"},
		{"HTTPServer", "HTTP Server"},
		{"parseHTTPRequest2xx", "parse HTTP Request 2 xx"},
		{"snake_case_name", "snake case name"},
		{"__init__", "init"},
		{"kebab-case", "kebab case"},
		{"UTF8Decoder", "UTF 8 Decoder"},
		{"already", "already"},
		{"ÜberClass", "Über Class"},
		{"$scope", "scope"},
	} {
		var got []string
		Split(tc.in, func(p string, _ int) { got = append(got, p) })
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("Split(%q) = %q, want %q", tc.in, g, tc.want)
		}
	}
}

func TestCodeAndText(t *testing.T) {
	if got, want := terms(Code, "s.getUserName(ctx)"), "s getusername +get +user +name ctx"; got != want {
		t.Errorf("Code = %q, want %q", got, want)
	}
	// prose: stop words out, stems in, identifiers still split
	if got, want := terms(Text, "Refreshing the page drops the artifact_url"), "refresh page drop artifact_url +artifact +url"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	// offsets point into the input
	var toks []Token
	Code([]byte("a fooBar"), func(t Token) { toks = append(toks, t) })
	want := []Token{{"a", 0, 1, false}, {"foobar", 2, 8, false}, {"foo", 2, 5, true}, {"bar", 5, 8, true}}
	if diff := cmp.Diff(want, toks); diff != "" {
		t.Errorf("offsets (-want +got):\n%s", diff)
	}
}

// Chinese and Japanese have no spaces between words, and issues written in
// them put identifiers against the text: the identifier is a word of its
// own, the text its pairs of characters; Hangul is cut from Latin too.
func TestMixedScripts(t *testing.T) {
	for _, tc := range []struct{ in, want, text string }{
		{"调用status.FromError时返回", "调用 status fromerror +from +error 时返 返回", "调用 statu fromerror +error 时返 返回"},
		{"使用WithKeepaliveParams设置后", "使用 withkeepaliveparams +with +keepalive +params 设置 置后", "使用 withkeepaliveparam +keepal +param 设置 置后"},
		{"的", "的", ""},
		{"キャッシュを使う", "キャ ャッ ッシ シュ ュを を使 使う", ""},
		{"사용WithBlock옵션", "사용 withblock +with +block 옵션", "사용 withblock +block 옵션"},
		{"café_au_lait", "café_au_lait +café +au +lait", ""},
		// a sentence longer than the 64 bytes an identifier may have
		{"这是一个没有标点符号的很长的句子用来检查长度限制不会丢掉它", "这是 是一 一个 个没 没有 有标 标点 点符 符号 号的 的很 很长 长的 的句 句子 子用 用来 来检 检查 查长 长度 度限 限制 制不 不会 会丢 丢掉 掉它", ""},
	} {
		if got := terms(Code, tc.in); got != tc.want {
			t.Errorf("Code(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if tc.text == "" {
			tc.text = tc.want
		}
		if got := terms(Text, tc.in); got != tc.text {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
		}
	}
	var toks []Token
	Code([]byte("a连接没"), func(t Token) { toks = append(toks, t) })
	want := []Token{{"a", 0, 1, false}, {"连接", 1, 7, false}, {"接没", 4, 10, false}}
	if diff := cmp.Diff(want, toks); diff != "" {
		t.Errorf("offsets (-want +got):\n%s", diff)
	}
}
