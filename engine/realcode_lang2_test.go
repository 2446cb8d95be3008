package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cairn-dev/cairn/engine"
)

// expo-modules-core 58.2.1 (npm) ships its Android sources in Kotlin and
// its iOS sources in Swift (Scala's real code: realcode_scala_test.go).
func init() {
	realViews = append(realViews,
		realView{Name: "expo-kotlin-types", Corpus: "expo", Paths: []string{"android/src/main/java/expo/modules/kotlin/types"}},
		realView{Name: "expo-swift-exceptions", Corpus: "expo", Paths: []string{"ios/Core/Exceptions"}},
	)
	realCases = append(realCases,
		realCase{Name: "definitions/TypeConverter in Kotlin", View: "expo-kotlin-types", Check: func(t *testing.T, s *engine.Snapshot) {
			// types/TypeConverter.kt:13 interface TypeConverter<Type : Any> {
			wantDefinitions(t, s, "TypeConverter", "android/src/main/java/expo/modules/kotlin/types/TypeConverter.kt:13")
		}},
		realCase{Name: "implementations/TypeConverter in Kotlin", View: "expo-kotlin-types", Check: func(t *testing.T, s *engine.Snapshot) {
			// TypeConverter.kt:35 abstract class NonNullableTypeConverter<Type : Any>() : TypeConverter<Type>;
			// NullableTypeConverter.kt:8-10 class NullableTypeConverter<Type : Any>(…) : TypeConverter<Type>;
			// ValueOrUndefinedTypeConverter.kt:8-11 class ValueOrUndefinedTypeConverter(…) : TypeConverter<ValueOrUndefined<*>>
			// (read from the three files: the heads span lines, a one-line grep finds the first only)
			sameSet(t, "implementations TypeConverter", directHops(t, s, "TypeConverter"), []string{
				"NonNullableTypeConverter android/src/main/java/expo/modules/kotlin/types/TypeConverter.kt:35",
				"NullableTypeConverter android/src/main/java/expo/modules/kotlin/types/NullableTypeConverter.kt:8",
				"ValueOrUndefinedTypeConverter android/src/main/java/expo/modules/kotlin/types/ValueOrUndefinedTypeConverter.kt:8"})
		}},
		realCase{Name: "definitions/ChainableException in Swift", View: "expo-swift-exceptions", Check: func(t *testing.T, s *engine.Snapshot) {
			// ios/Core/Exceptions/ChainableException.swift:6 public protocol ChainableException: Error, AnyObject {
			wantDefinitions(t, s, "ChainableException", "ios/Core/Exceptions/ChainableException.swift:6")
		}},
		realCase{Name: "implementations/ChainableException in Swift", View: "expo-swift-exceptions", Check: func(t *testing.T, s *engine.Snapshot) {
			// Exception.swift:3 open class Exception: CodedError, ChainableException, …
			// (grep ChainableException over ios/: the only conformance)
			sameSet(t, "implementations ChainableException", directHops(t, s, "ChainableException"),
				[]string{"Exception ios/Core/Exceptions/Exception.swift:3"})
		}},
	)
}

// directHops lists the direct implementations of name as "Name path:line".
func directHops(t *testing.T, s *engine.Snapshot, name string) []string {
	t.Helper()
	res, err := s.Implementations(context.Background(), engine.HopsOptions{Name: name, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range res.Results {
		if h.Definition == nil {
			continue
		}
		got = append(got, fmt.Sprintf("%s %s:%d", h.Name, h.Definition.Path, h.Definition.StartLine))
	}
	return got
}
