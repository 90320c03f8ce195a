package oracle

// Waivers are the known differences between kgviz's coordinator and Kafka's,
// each by value on both sides, with the section of docs/simplifications.md
// that explains it.
var Waivers = []Waiver{}
