package charts

import (
	_ "embed" // for the vendored ECharts library
)

// EChartsVersion is the version of the vendored Apache ECharts build
// (npm package echarts, Apache-2.0; see assets/README.md).
const EChartsVersion = "6.1.0"

//go:embed assets/echarts.min.js
var echartsJS string

//go:embed assets/NOTICE
var echartsNotice string
