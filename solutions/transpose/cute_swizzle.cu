// Transpose with CuTe through swizzled shared memory (Colfax's CuTe transpose tutorial, step 3).
//
// Each block moves a 64x64 tile: its 256 threads copy the tile's rows from the
// input into shared memory (coalesced), then copy rows of the *transposed view*
// of that shared memory into the output's rows (coalesced too). The transposed
// view is a second CuTe layout over the same buffer: the composition of the
// tile's row-major layout with the output tile's row-major layout, which is the
// column-major layout of the tile. As in cute_smem.cu, but the shared memory
// layout is swizzled: Swizzle<5, 0, 6> XORs bits 6-10 of each element's offset
// (its row, for rows of 64 floats) into bits 0-4 (its bank), so that a warp
// reading 32 rows of one column hits 32 different banks, and a warp writing a
// row still does. (The tutorial's Swizzle<5, 0, 5> is the one for rows of 32
// floats; on rows of 64 it leaves two-way conflicts.) The swizzle is part of the
// layout: the kernel is cute_smem.cu's, unchanged.
//
// Needs the CUTLASS headers: pip install 'judge[cutlass]', or CUTLASS_PATH=<a CUTLASS checkout>.
//   judge run transpose solutions/transpose/cute_swizzle.cu
#include <cute/tensor.hpp>

using namespace cute;

using TileM = Int<64>;  // input rows per tile (output columns)
using TileN = Int<64>;  // input columns per tile (output rows)
// 8 x 32 threads, row-major: the 32 threads of a warp lie along a row of a tile.
using ThreadLayout = Layout<Shape<_8, _32>, Stride<_32, _1>>;

template <class TensorS, class TensorD, class SmemLayoutS, class SmemLayoutD>
__global__ void __launch_bounds__(256) transpose_cute_swizzle(TensorS S, TensorD D, SmemLayoutS smem_S, SmemLayoutD smem_D) {
    __shared__ alignas(128) float smem[cosize_v<SmemLayoutS>];
    Tensor sS = make_tensor(make_smem_ptr(smem), smem_S);  // (64, 64): the input tile as it is read
    Tensor sD = make_tensor(make_smem_ptr(smem), smem_D);  // (64, 64): the same buffer seen transposed
    auto shape_S = shape(S);  // (rows, cols)
    auto shape_D = shape(D);  // (cols, rows)
    Tensor gS = local_tile(S, make_shape(TileM{}, TileN{}), make_coord(blockIdx.x, blockIdx.y));
    Tensor gD = local_tile(D, make_shape(TileN{}, TileM{}), make_coord(blockIdx.y, blockIdx.x));
    Tensor tSgS = local_partition(gS, ThreadLayout{}, threadIdx.x);
    Tensor tSsS = local_partition(sS, ThreadLayout{}, threadIdx.x);
    Tensor tDsD = local_partition(sD, ThreadLayout{}, threadIdx.x);
    Tensor tDgD = local_partition(gD, ThreadLayout{}, threadIdx.x);
    bool inside = (blockIdx.x + 1) * TileM{} <= get<0>(shape_S) && (blockIdx.y + 1) * TileN{} <= get<1>(shape_S);
    if (inside) {  // a whole tile: no bounds to check (the same for every thread of the block)
        copy(tSgS, tSsS);
        __syncthreads();
        copy(tDsD, tDgD);
        return;
    }
    // A tile at the edge (sizes that are not multiples of 64): each element's coordinates, checked.
    Tensor cS = local_partition(local_tile(make_identity_tensor(shape_S), make_shape(TileM{}, TileN{}),
                                           make_coord(blockIdx.x, blockIdx.y)), ThreadLayout{}, threadIdx.x);
    Tensor cD = local_partition(local_tile(make_identity_tensor(shape_D), make_shape(TileN{}, TileM{}),
                                           make_coord(blockIdx.y, blockIdx.x)), ThreadLayout{}, threadIdx.x);
    CUTE_UNROLL
    for (int i = 0; i < size(tSgS); ++i) {
        if (elem_less(cS(i), shape_S)) {
            tSsS(i) = tSgS(i);
        }
    }
    __syncthreads();
    CUTE_UNROLL
    for (int i = 0; i < size(tDgD); ++i) {
        if (elem_less(cD(i), shape_D)) {
            tDgD(i) = tDsD(i);
        }
    }
}

// input, output are device pointers
extern "C" void solve(const float* input, float* output, int rows, int cols) {
    // Offsets stay below 2^31 for every size the challenge allows (rows, cols <= 32768 here too).
    Tensor S = make_tensor(make_gmem_ptr(input), make_layout(make_shape(rows, cols), LayoutRight{}));
    Tensor D = make_tensor(make_gmem_ptr(output), make_layout(make_shape(cols, rows), LayoutRight{}));
    auto tile_S = make_layout(make_shape(TileM{}, TileN{}), LayoutRight{});  // (64, 64):(64, 1)
    auto tile_D = make_layout(make_shape(TileN{}, TileM{}), LayoutRight{});
    // tile_S o tile_D maps the output tile's (j, i) to tile_S's offset of (i, j): the transposed view.
    // Swizzled: the function applied to every offset of tile_S, and so of its transposed view too.
    auto smem_S = composition(Swizzle<5, 0, 6>{}, tile_S);
    auto smem_D = composition(smem_S, tile_D);
    dim3 grid(ceil_div(rows, int(TileM{})), ceil_div(cols, int(TileN{})));
    transpose_cute_swizzle<<<grid, int(size(ThreadLayout{}))>>>(S, D, smem_S, smem_D);
}
