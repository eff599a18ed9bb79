// Transpose with CuTe, the naive way (Colfax's CuTe transpose tutorial, step 1):
// the output is viewed as a column-major rows x cols tensor, so "transpose" is a
// copy from a row-major view to a column-major view of the same shape. Each block
// copies a 64x64 tile through registers; its 256 threads read the input's rows
// (coalesced) and write the output with a stride of `rows` floats (not coalesced).
//
// Needs the CUTLASS headers: pip install 'judge[cutlass]', or CUTLASS_PATH=<a CUTLASS checkout>.
//   judge run transpose solutions/transpose/cute_naive.cu
#include <cute/tensor.hpp>

using namespace cute;

using TileM = Int<64>;  // input rows per tile
using TileN = Int<64>;  // input columns per tile
// 8 x 32 threads, row-major: the 32 threads of a warp lie along a row of the tile.
using ThreadLayout = Layout<Shape<_8, _32>, Stride<_32, _1>>;

template <class TensorS, class TensorDT>
__global__ void __launch_bounds__(256) transpose_cute_naive(TensorS S, TensorDT DT) {
    auto shape_S = shape(S);  // (rows, cols)
    auto tile = make_shape(TileM{}, TileN{});
    auto block = make_coord(blockIdx.x, blockIdx.y);
    Tensor gS = local_tile(S, tile, block);    // this block's (64, 64) tile of the input
    Tensor gDT = local_tile(DT, tile, block);  // the same coordinates in the output's column-major view
    Tensor tSgS = local_partition(gS, ThreadLayout{}, threadIdx.x);  // (8, 2) elements of this thread
    Tensor tDgDT = local_partition(gDT, ThreadLayout{}, threadIdx.x);
    Tensor registers = make_tensor_like(tSgS);
    bool inside = (blockIdx.x + 1) * TileM{} <= get<0>(shape_S) && (blockIdx.y + 1) * TileN{} <= get<1>(shape_S);
    if (inside) {  // a whole tile: no bounds to check
        copy(tSgS, registers);
        copy(registers, tDgDT);
        return;
    }
    // A tile at the edge (sizes that are not multiples of 64): each element's coordinates, checked.
    Tensor coords = local_partition(local_tile(make_identity_tensor(shape_S), tile, block), ThreadLayout{},
                                    threadIdx.x);
    CUTE_UNROLL
    for (int i = 0; i < size(registers); ++i) {
        if (elem_less(coords(i), shape_S)) {
            tDgDT(i) = tSgS(i);
        }
    }
}

// input, output are device pointers
extern "C" void solve(const float* input, float* output, int rows, int cols) {
    // Offsets stay below 2^31 for every size the challenge allows (rows, cols <= 32768 here too).
    Tensor S = make_tensor(make_gmem_ptr(input), make_layout(make_shape(rows, cols), LayoutRight{}));
    Tensor DT = make_tensor(make_gmem_ptr(output), make_layout(make_shape(rows, cols), LayoutLeft{}));
    dim3 grid(ceil_div(rows, int(TileM{})), ceil_div(cols, int(TileN{})));
    transpose_cute_naive<<<grid, int(size(ThreadLayout{}))>>>(S, DT);
}
