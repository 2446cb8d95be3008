package contextpack

import (
	"strings"
	"testing"
)

func TestLicenseEnd(t *testing.T) {
	cases := []struct {
		name, src string
		want      int
	}{
		{"go block", "/*\n *\n * Copyright 2017 gRPC authors.\n *\n * Licensed under the Apache License\n */\n\npackage grpc\n", 7},
		{"go lines, then the package doc", "// Copyright 2020 The Go Authors. All rights reserved.\n// Use of this source code is governed by a BSD-style\n// license that can be found in the LICENSE file.\n\n// Package x does things.\npackage x\n", 4},
		{"python", "# Licensed under a 3-clause BSD style license - see LICENSE.rst\n\"\"\"The module.\"\"\"\nimport os\n", 1},
		{"python, SPDX", "# SPDX-License-Identifier: MIT\n\n\nimport os\n", 3},
		{"a doc comment only", "// Package foo frobs.\npackage foo\n", 0},
		{"no comment", "package foo\n// Copyright inside\n", 0},
		{"shebang first", "#!/usr/bin/env python\n# Copyright 2001\nimport os\n", 0},
		{"one-line block", "/* Copyright 2001 Acme */\nint x;\n", 1},
		{"blank lines before", "\n\n// Copyright 2001\n", 0},
	}
	for _, c := range cases {
		if got := licenseEnd(strings.Split(c.src, "\n")); got != c.want {
			t.Errorf("%s: licenseEnd = %d, want %d", c.name, got, c.want)
		}
	}
}
