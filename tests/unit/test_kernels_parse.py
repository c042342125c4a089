"""Reading kernels from Inductor's output code: the kernel-name rule, and never a guess."""

from compilescope.session.kernels import aten_ops_from_name


def test_kernel_name_is_split_only_into_ops_of_the_graph() -> None:
    graph = {"aten.add.Tensor", "aten.relu.default", "aten.native_layer_norm.default", "aten.mm.default"}
    assert aten_ops_from_name("cpp_fused_add_relu_0", graph) == ["aten.add", "aten.relu"]
    assert aten_ops_from_name("triton_per_fused_add_native_layer_norm_3", graph) == ["aten.add", "aten.native_layer_norm"]
    # ops the graph no longer shows (decomposed) are still real ATen ops
    assert aten_ops_from_name("cpp_fused_gelu_view_2", graph) == ["aten.gelu", "aten.view"]
    assert aten_ops_from_name("cpp_fused__softmax_1", graph) == ["aten._softmax"]
    # a name that does not split into real op names: unknown, not a guess
    assert aten_ops_from_name("cpp_fused_frobnicate_0", graph) is None
    assert aten_ops_from_name("mm", graph) is None
