// Vulkan instance/device bring-up: device choice (CUDA UUID match first), validation, one queue.
#include "context.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <utility>

namespace tl::vk {

const char* result_name(VkResult r) {
    switch (r) {
#define TL_VK_CASE(x) case x: return #x;
        TL_VK_CASE(VK_SUCCESS)
        TL_VK_CASE(VK_NOT_READY)
        TL_VK_CASE(VK_TIMEOUT)
        TL_VK_CASE(VK_EVENT_SET)
        TL_VK_CASE(VK_EVENT_RESET)
        TL_VK_CASE(VK_INCOMPLETE)
        TL_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
        TL_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        TL_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
        TL_VK_CASE(VK_ERROR_DEVICE_LOST)
        TL_VK_CASE(VK_ERROR_MEMORY_MAP_FAILED)
        TL_VK_CASE(VK_ERROR_LAYER_NOT_PRESENT)
        TL_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
        TL_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
        TL_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
        TL_VK_CASE(VK_ERROR_TOO_MANY_OBJECTS)
        TL_VK_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
        TL_VK_CASE(VK_ERROR_FRAGMENTED_POOL)
        TL_VK_CASE(VK_ERROR_UNKNOWN)
        TL_VK_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
        TL_VK_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
        TL_VK_CASE(VK_ERROR_FRAGMENTATION)
        TL_VK_CASE(VK_ERROR_SURFACE_LOST_KHR)
        TL_VK_CASE(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
        TL_VK_CASE(VK_SUBOPTIMAL_KHR)
        TL_VK_CASE(VK_ERROR_OUT_OF_DATE_KHR)
#undef TL_VK_CASE
    default: return "VK_RESULT_UNKNOWN";
    }
}

void throw_vk_error(const char* expr, VkResult r, const char* file, int line) {
    std::ostringstream s;
    s << expr << " failed: " << result_name(r) << " at " << file << ":" << line;
    throw Error(s.str());
}

namespace {

const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

VKAPI_ATTR VkBool32 VKAPI_CALL debug_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                              VkDebugUtilsMessageTypeFlagsEXT /*types*/,
                                              const VkDebugUtilsMessengerCallbackDataEXT* data,
                                              void* user) {
    if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
        static_cast<std::atomic<std::uint32_t>*>(user)->fetch_add(1);
        std::fprintf(stderr, "[vulkan validation %s] %s\n",
                     (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning",
                     data && data->pMessage ? data->pMessage : "(no message)");
    }
    return VK_FALSE;
}

const char* type_name(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
    }
}

int type_rank(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
    }
}

std::string version_string(std::uint32_t v) {
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
           std::to_string(VK_API_VERSION_PATCH(v));
}

std::string describe(const VkPhysicalDeviceProperties& p) {
    return std::string(p.deviceName) + " [" + type_name(p.deviceType) + ", Vulkan " + version_string(p.apiVersion) + "]";
}

std::vector<std::string> device_extensions_of(VkPhysicalDevice pd) {
    std::uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> props(n);
    vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, props.data());
    std::vector<std::string> names;
    for (const auto& e : props) names.emplace_back(e.extensionName);
    return names;
}

bool contains(const std::vector<std::string>& list, std::string_view s) {
    return std::find(list.begin(), list.end(), s) != list.end();
}

std::optional<std::uint32_t> graphics_compute_family(VkPhysicalDevice pd) {
    std::uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
    for (std::uint32_t i = 0; i < n; ++i) {
        const auto f = families[i].queueFlags;
        if ((f & VK_QUEUE_GRAPHICS_BIT) && (f & VK_QUEUE_COMPUTE_BIT)) return i;
    }
    return std::nullopt;
}

} // namespace

Context::Context(const ContextOptions& options)
    : validation_messages_(std::make_unique<std::atomic<std::uint32_t>>(0)) {
    // Instance: Vulkan 1.2 for timeline semaphores in core.
    std::uint32_t loader_version = VK_API_VERSION_1_0;
    if (auto fn = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
            vkGetInstanceProcAddr(nullptr, "vkEnumerateInstanceVersion")))
        fn(&loader_version);
    if (loader_version < VK_API_VERSION_1_2)
        throw Error("the Vulkan loader supports only Vulkan " + version_string(loader_version) +
                    "; tilelab needs Vulkan 1.2");

    std::vector<const char*> layers;
    std::vector<const char*> instance_exts;
    for (const auto& e : options.instance_extensions) instance_exts.push_back(e.c_str());
    if (options.validation) {
        std::uint32_t n = 0;
        vkEnumerateInstanceLayerProperties(&n, nullptr);
        std::vector<VkLayerProperties> available(n);
        vkEnumerateInstanceLayerProperties(&n, available.data());
        const bool found = std::any_of(available.begin(), available.end(),
                                       [](const VkLayerProperties& l) { return std::strcmp(l.layerName, kValidationLayer) == 0; });
        if (!found)
            throw Error("validation requested but VK_LAYER_KHRONOS_validation is not installed "
                        "(Debian: apt install vulkan-validationlayers)");
        layers.push_back(kValidationLayer);
        instance_exts.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        validation_ = true;
        debug_utils_ = true;
    } else {
        // Debug-utils labels name each pass in Nsight Systems / RenderDoc captures: enable the
        // extension whenever the loader offers it, not only with validation.
        std::uint32_t n = 0;
        vkEnumerateInstanceExtensionProperties(nullptr, &n, nullptr);
        std::vector<VkExtensionProperties> available(n);
        vkEnumerateInstanceExtensionProperties(nullptr, &n, available.data());
        debug_utils_ = std::any_of(available.begin(), available.end(), [](const VkExtensionProperties& e) {
            return std::strcmp(e.extensionName, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) == 0;
        });
        if (debug_utils_) instance_exts.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    }

    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "tilelab";
    app.applicationVersion = VK_MAKE_API_VERSION(0, 0, 1, 0);
    app.pEngineName = "tilelab";
    app.apiVersion = VK_API_VERSION_1_2;

    VkDebugUtilsMessengerCreateInfoEXT messenger_info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    messenger_info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                 VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messenger_info.pfnUserCallback = debug_callback;
    messenger_info.pUserData = validation_messages_.get();

    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    ici.enabledLayerCount = static_cast<std::uint32_t>(layers.size());
    ici.ppEnabledLayerNames = layers.data();
    ici.enabledExtensionCount = static_cast<std::uint32_t>(instance_exts.size());
    ici.ppEnabledExtensionNames = instance_exts.data();
    if (validation_) ici.pNext = &messenger_info;  // also report problems in vkCreateInstance itself
    const VkResult ir = vkCreateInstance(&ici, nullptr, &instance_);
    if (ir != VK_SUCCESS)
        throw Error(std::string("cannot create a Vulkan instance (") + result_name(ir) +
                    "): is a Vulkan driver installed? (Debian: mesa-vulkan-drivers provides lavapipe)");

    try {
        if (validation_) {
            auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
                vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
            if (!create) throw Error("vkCreateDebugUtilsMessengerEXT is not available");
            VK_CHECK(create(instance_, &messenger_info, nullptr, &messenger_));
        }

        std::uint32_t count = 0;
        VK_CHECK(vkEnumeratePhysicalDevices(instance_, &count, nullptr));
        if (count == 0) throw Error("no Vulkan device found (Debian: mesa-vulkan-drivers provides lavapipe)");
        std::vector<VkPhysicalDevice> devices(count);
        VK_CHECK(vkEnumeratePhysicalDevices(instance_, &count, devices.data()));

        struct Candidate {
            VkPhysicalDevice pd;
            VkPhysicalDeviceProperties props;
            std::array<std::uint8_t, 16> uuid;
            std::string refusal;  // empty when usable
        };
        std::vector<Candidate> candidates;
        for (auto pd : devices) {
            VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
            VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
            p2.pNext = &id;
            vkGetPhysicalDeviceProperties2(pd, &p2);
            Candidate c{pd, p2.properties, {}, {}};
            std::copy(std::begin(id.deviceUUID), std::end(id.deviceUUID), c.uuid.begin());

            VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
            VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
            f2.pNext = &f12;
            if (c.props.apiVersion >= VK_API_VERSION_1_2) vkGetPhysicalDeviceFeatures2(pd, &f2);
            const auto exts = device_extensions_of(pd);
            if (c.props.apiVersion < VK_API_VERSION_1_2) c.refusal = "needs Vulkan 1.2";
            else if (!f12.timelineSemaphore) c.refusal = "no timeline semaphores";
            else if (!graphics_compute_family(pd)) c.refusal = "no graphics+compute queue";
            else if (options.want_swapchain && !contains(exts, VK_KHR_SWAPCHAIN_EXTENSION_NAME)) c.refusal = "no VK_KHR_swapchain";
            candidates.push_back(std::move(c));
        }

        const Candidate* chosen = nullptr;
        if (options.device_uuid) {
            for (const auto& c : candidates)
                if (c.refusal.empty() && c.uuid == *options.device_uuid) chosen = &c;
        }
        if (!chosen) {
            for (const auto& c : candidates) {
                if (!c.refusal.empty()) continue;
                if (!chosen || type_rank(c.props.deviceType) > type_rank(chosen->props.deviceType)) chosen = &c;
            }
        }
        if (!options.quiet) {
            std::fprintf(stderr, "Vulkan devices:\n");
            for (const auto& c : candidates)
                std::fprintf(stderr, "  %s %s%s%s\n", &c == chosen ? "*" : " ", describe(c.props).c_str(),
                             c.refusal.empty() ? "" : " - unusable: ", c.refusal.c_str());
        }
        if (!chosen) {
            std::string why = "no usable Vulkan device:";
            for (const auto& c : candidates) why += " " + std::string(c.props.deviceName) + " (" + c.refusal + ")";
            throw Error(why);
        }
        if (options.device_uuid && chosen->uuid != *options.device_uuid && !options.quiet)
            std::fprintf(stderr, "  (no Vulkan device matches the CUDA device's UUID; using the best one instead)\n");

        physical_device_ = chosen->pd;
        properties_ = chosen->props;
        device_uuid_ = chosen->uuid;
        vkGetPhysicalDeviceMemoryProperties(physical_device_, &memory_properties_);
        queue_family_ = *graphics_compute_family(physical_device_);
        {
            std::uint32_t n = 0;
            vkGetPhysicalDeviceQueueFamilyProperties(physical_device_, &n, nullptr);
            std::vector<VkQueueFamilyProperties> families(n);
            vkGetPhysicalDeviceQueueFamilyProperties(physical_device_, &n, families.data());
            timestamp_valid_bits_ = families[queue_family_].timestampValidBits;
        }
        if (!options.quiet) std::fprintf(stderr, "Using Vulkan device: %s\n", describe(properties_).c_str());

        const auto available = device_extensions_of(physical_device_);
        if (options.want_swapchain) enabled_device_extensions_.emplace_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
        for (const auto& e : options.optional_device_extensions)
            if (contains(available, e) && !contains(enabled_device_extensions_, e)) enabled_device_extensions_.push_back(e);
        std::vector<const char*> ext_ptrs;
        for (const auto& e : enabled_device_extensions_) ext_ptrs.push_back(e.c_str());

        const float priority = 1.0f;
        VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        qci.queueFamilyIndex = queue_family_;
        qci.queueCount = 1;
        qci.pQueuePriorities = &priority;

        VkPhysicalDeviceFeatures supported{};
        vkGetPhysicalDeviceFeatures(physical_device_, &supported);
        VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
        f12.timelineSemaphore = VK_TRUE;
        VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
        features.pNext = &f12;
        // Harmless where unused; lets compute shaders use 16-bit integers where the device has them.
        features.features.shaderInt16 = supported.shaderInt16;

        VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
        dci.pNext = &features;
        dci.queueCreateInfoCount = 1;
        dci.pQueueCreateInfos = &qci;
        dci.enabledExtensionCount = static_cast<std::uint32_t>(ext_ptrs.size());
        dci.ppEnabledExtensionNames = ext_ptrs.data();
        VK_CHECK(vkCreateDevice(physical_device_, &dci, nullptr, &device_));
        vkGetDeviceQueue(device_, queue_family_, 0, &queue_);

        VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
        pci.queueFamilyIndex = queue_family_;
        VK_CHECK(vkCreateCommandPool(device_, &pci, nullptr, &one_shot_pool_));
    } catch (...) {
        destroy();  // members are fully built here, so only the Vulkan handles need releasing
        throw;
    }
}

Context::~Context() { destroy(); }

void Context::destroy() noexcept {
    if (device_) {
        vkDeviceWaitIdle(device_);
        if (one_shot_pool_) vkDestroyCommandPool(device_, one_shot_pool_, nullptr);
        vkDestroyDevice(device_, nullptr);
        device_ = VK_NULL_HANDLE;
        one_shot_pool_ = VK_NULL_HANDLE;
    }
    if (messenger_) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(instance_, messenger_, nullptr);
        messenger_ = VK_NULL_HANDLE;
    }
    if (instance_) {
        vkDestroyInstance(instance_, nullptr);
        instance_ = VK_NULL_HANDLE;
    }
}

bool Context::has_extension(std::string_view device_extension) const {
    return contains(enabled_device_extensions_, device_extension);
}

std::string Context::device_description() const { return describe(properties_); }

std::uint32_t Context::memory_type(std::uint32_t type_bits, VkMemoryPropertyFlags flags) const {
    for (std::uint32_t i = 0; i < memory_properties_.memoryTypeCount; ++i)
        if ((type_bits & (1u << i)) && (memory_properties_.memoryTypes[i].propertyFlags & flags) == flags) return i;
    throw Error("no Vulkan memory type with the requested properties (flags 0x" + std::to_string(flags) + ")");
}

void Context::one_shot(const std::function<void(VkCommandBuffer)>& record) const {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = one_shot_pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VK_CHECK(vkAllocateCommandBuffers(device_, &ai, &cmd));
    VkFence fence = VK_NULL_HANDLE;
    try {
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        VK_CHECK(vkBeginCommandBuffer(cmd, &bi));
        record(cmd);
        VK_CHECK(vkEndCommandBuffer(cmd));
        VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VK_CHECK(vkCreateFence(device_, &fi, nullptr, &fence));
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        VK_CHECK(vkQueueSubmit(queue_, 1, &si, fence));
        VK_CHECK(vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX));
    } catch (...) {
        if (fence) vkDestroyFence(device_, fence, nullptr);
        vkFreeCommandBuffers(device_, one_shot_pool_, 1, &cmd);
        throw;
    }
    vkDestroyFence(device_, fence, nullptr);
    vkFreeCommandBuffers(device_, one_shot_pool_, 1, &cmd);
}

Buffer::Buffer(const Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags flags)
    : device_(ctx.device()), size_(size) {
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = size;
    bci.usage = usage;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VK_CHECK(vkCreateBuffer(device_, &bci, nullptr, &buffer_));
    try {
        VkMemoryRequirements req{};
        vkGetBufferMemoryRequirements(device_, buffer_, &req);
        VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        mai.allocationSize = req.size;
        mai.memoryTypeIndex = ctx.memory_type(req.memoryTypeBits, flags);
        VK_CHECK(vkAllocateMemory(device_, &mai, nullptr, &memory_));
        VK_CHECK(vkBindBufferMemory(device_, buffer_, memory_, 0));
        if (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) VK_CHECK(vkMapMemory(device_, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_));
    } catch (...) {
        release();
        throw;
    }
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& other) noexcept
    : device_(std::exchange(other.device_, VK_NULL_HANDLE)),
      buffer_(std::exchange(other.buffer_, VK_NULL_HANDLE)),
      memory_(std::exchange(other.memory_, VK_NULL_HANDLE)),
      size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, nullptr)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
    if (this != &other) {
        release();
        device_ = std::exchange(other.device_, VK_NULL_HANDLE);
        buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
        memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
        size_ = std::exchange(other.size_, 0);
        mapped_ = std::exchange(other.mapped_, nullptr);
    }
    return *this;
}

void Buffer::release() noexcept {
    if (!device_) return;
    if (mapped_) vkUnmapMemory(device_, memory_);
    if (buffer_) vkDestroyBuffer(device_, buffer_, nullptr);
    if (memory_) vkFreeMemory(device_, memory_, nullptr);
    buffer_ = VK_NULL_HANDLE;
    memory_ = VK_NULL_HANDLE;
    mapped_ = nullptr;
}

} // namespace tl::vk
