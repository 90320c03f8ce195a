package pipe

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/kgviz/kgviz/kgviz"
)

// What may cross the pipe. An answer function's parameters and results are
// encoded as JSON, so they must be plain data:
//
//   - bool, the integer kinds (named ones too: kgviz.ErrorCode, kgviz.CommitMode,
//     ...), float32/float64 (finite), string;
//   - slices, arrays and pointers of codable types; maps whose keys are strings
//     or integers;
//   - structs whose fields are all exported and codable (kgviz.Event,
//     kgviz.LogRecord, kgviz.MemberSubscription, kgviz.TopicPartition, ...);
//   - kgviz.Assignor, sent by name: only the built-in assignors (kgviz.Range,
//     kgviz.RoundRobin, kgviz.Sticky, kgviz.CooperativeSticky) can cross.
//
// Functions, channels, other interfaces (any, error, ...) and *kgviz.World
// cannot: an answer that must act on a world returns data that describes what
// to do (see exercises.Step), and an answer that the simulation calls back
// (an assignor) is itself an answer function. nil slices and maps stay nil,
// empty ones stay empty: checks tell "not answered" (nil) from "nothing" ([]).

var assignorType = reflect.TypeOf((*kgviz.Assignor)(nil)).Elem()

// Codable reports why values of type t cannot cross the pipe, or nil if they can.
func Codable(t reflect.Type) error {
	return codable(t, map[reflect.Type]bool{})
}

var (
	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
)

func codable(t reflect.Type, seen map[reflect.Type]bool) error {
	if t == assignorType {
		return nil
	}
	if seen[t] {
		return nil
	}
	seen[t] = true
	// A type that encodes itself both ways (kgviz.Event: its log encoding)
	// crosses as it says.
	if t.Implements(jsonMarshaler) && reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		return nil
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.String:
		return nil
	case reflect.Slice, reflect.Array, reflect.Pointer:
		return codable(t.Elem(), seen)
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			return fmt.Errorf("%s: map keys must be strings or integers", t)
		}
		return codable(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				return fmt.Errorf("%s: unexported field %s would be lost", t, f.Name)
			}
			if err := codable(f.Type, seen); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%s cannot cross the pipe (only plain data: see package pipe)", t)
}

// hasSpecial reports whether t contains a type that encoding/json cannot
// handle by itself (kgviz.Assignor).
func hasSpecial(t reflect.Type) bool {
	switch {
	case t == assignorType:
		return true
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Pointer || t.Kind() == reflect.Map:
		return hasSpecial(t.Elem())
	}
	return false
}

// Encode turns a value of a codable type into JSON.
func Encode(v reflect.Value) (json.RawMessage, error) {
	t := v.Type()
	if !hasSpecial(t) {
		return json.Marshal(v.Interface())
	}
	switch t.Kind() {
	case reflect.Interface: // kgviz.Assignor
		if v.IsNil() {
			return json.RawMessage("null"), nil
		}
		a := v.Interface().(kgviz.Assignor)
		if _, err := kgviz.AssignorByName(a.Name()); err != nil {
			return nil, fmt.Errorf("assignor %q is not a built-in one; only kgviz.Range, RoundRobin, Sticky and CooperativeSticky can cross the pipe", a.Name())
		}
		return json.Marshal(map[string]string{"assignor": a.Name()})
	case reflect.Pointer:
		if v.IsNil() {
			return json.RawMessage("null"), nil
		}
		return Encode(v.Elem())
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && v.IsNil() {
			return json.RawMessage("null"), nil
		}
		out := make([]json.RawMessage, v.Len())
		for i := range out {
			raw, err := Encode(v.Index(i))
			if err != nil {
				return nil, err
			}
			out[i] = raw
		}
		return json.Marshal(out)
	case reflect.Map:
		if v.IsNil() {
			return json.RawMessage("null"), nil
		}
		out := make(map[string]json.RawMessage, v.Len())
		it := v.MapRange()
		for it.Next() {
			k, err := json.Marshal(it.Key().Interface())
			if err != nil {
				return nil, err
			}
			var ks string
			if json.Unmarshal(k, &ks) != nil {
				ks = string(k) // an integer key
			}
			raw, err := Encode(it.Value())
			if err != nil {
				return nil, err
			}
			out[ks] = raw
		}
		return json.Marshal(out)
	}
	return nil, fmt.Errorf("cannot encode %s", t)
}

// Decode turns JSON back into a value of type t.
func Decode(raw json.RawMessage, t reflect.Type) (reflect.Value, error) {
	if !hasSpecial(t) {
		p := reflect.New(t)
		if err := json.Unmarshal(raw, p.Interface()); err != nil {
			return reflect.Value{}, err
		}
		return p.Elem(), nil
	}
	v := reflect.New(t).Elem()
	if string(raw) == "null" {
		return v, nil
	}
	switch t.Kind() {
	case reflect.Interface:
		var m struct{ Assignor string }
		if err := json.Unmarshal(raw, &m); err != nil {
			return v, err
		}
		a, err := kgviz.AssignorByName(m.Assignor)
		if err != nil {
			return v, err
		}
		v.Set(reflect.ValueOf(a))
	case reflect.Pointer:
		e, err := Decode(raw, t.Elem())
		if err != nil {
			return v, err
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(e)
		v.Set(p)
	case reflect.Slice, reflect.Array:
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return v, err
		}
		if t.Kind() == reflect.Slice {
			v.Set(reflect.MakeSlice(t, len(items), len(items)))
		} else if len(items) != t.Len() {
			return v, fmt.Errorf("%d items for %s", len(items), t)
		}
		for i, it := range items {
			e, err := Decode(it, t.Elem())
			if err != nil {
				return v, err
			}
			v.Index(i).Set(e)
		}
	case reflect.Map:
		var items map[string]json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return v, err
		}
		v.Set(reflect.MakeMapWithSize(t, len(items)))
		for ks, it := range items {
			k := reflect.New(t.Key())
			quoted, _ := json.Marshal(ks)
			if t.Key().Kind() != reflect.String {
				quoted = []byte(ks)
			}
			if err := json.Unmarshal(quoted, k.Interface()); err != nil {
				return v, err
			}
			e, err := Decode(it, t.Elem())
			if err != nil {
				return v, err
			}
			v.SetMapIndex(k.Elem(), e)
		}
	default:
		return v, fmt.Errorf("cannot decode %s", t)
	}
	return v, nil
}
